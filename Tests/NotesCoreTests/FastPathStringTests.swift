import Foundation
import Testing
@testable import NotesCore

/// The byte-level fast paths export relies on (`NotePath.fileName`/`folder`, `ConflictName.parse`'s
/// marker search, `HeadingSlugger`'s ASCII slugs), each against the plain String routine it
/// replaced, on awkward input: non-ASCII, combining marks, empty segments.
@Suite("Fast-path string routines")
struct FastPathStringTests {
    private static let awkwardPaths = [
        "a.md", "x/y/z.md", "é/ü.md", "e\u{301}/u\u{308}.md", "日本/語.md", "a//b.md", "a/.md", "/a.md", "a/", "", "/",
        "emoji😀/x😀.md", "a\u{301}/\u{301}b.md", "x/ /y.md", "folder/sub folder/note name.markdown",
    ]

    @Test("fileName and folder agree with the segments they used to split")
    func fileNameAndFolder() throws {
        var checked = 0
        for raw in Self.awkwardPaths + ["a/\u{301}b.md", "x/y\u{301}/z.md", "\u{600}/b.md"] {
            guard let path = try? NotePath(raw) else { continue }
            checked += 1
            let value = path.value
            let segments = value.split(separator: "/", omittingEmptySubsequences: false)
            #expect(path.fileName == segments.last.map(String.init) ?? value, "\(raw)")
            let oldFolder = value.lastIndex(of: "/").map { String(value[..<$0]) } ?? ""
            #expect(path.folder == oldFolder, "\(raw)")
        }
        #expect(checked >= 10)
    }

    @Test("parse answers nil without the marker, and reads conflict copies as before")
    func conflictParse() {
        let ms: Int64 = 1_795_000_000_000
        let notes = ["a.md", "x/y/Note.markdown", "é/ü.md", "日本/語.md", "a.conflict.md", "a.conflict-.md", "conflict-x-20260101-101010.md"]
        for note in notes {
            #expect(ConflictName.parse(note) == nil, "\(note)")
            let copy = ConflictName.path(for: note, device: "my laptop", millisecondsSinceEpoch: ms)
            #expect(ConflictName.parse(copy)?.note == note, "\(copy)")
            #expect(ConflictName.parse(copy)?.device == "my-laptop", "\(copy)")
            let second = ConflictName.path(for: note, device: "pc", millisecondsSinceEpoch: ms, attempt: 2)
            #expect(ConflictName.parse(second)?.note == note, "\(second)")
        }
        // The marker's bytes are there, so the String rules decide, as before: the mark joins the `-`.
        #expect(ConflictName.parse("a.conflict-\u{301}dev-20260101-101010.md") == nil)
        #expect(ConflictName.parse("a.conflict-d\u{E9}v-20260101-101010.md")?.device == "d\u{E9}v")
        #expect(ConflictName.parse("a.conflict\u{301}-dev-20260101-101010.md") == nil)
    }

    @Test("ASCII slugs are the slugs the Unicode rules give")
    func asciiSlugs() {
        var texts = ["Hello World", "  Mixed CASE_and-dashes  ", "Tabs\tand\nnewlines", "Punct!@#$%^&*()+=[]{};:'\",.<>/?\\|`~",
                     "123 Numbers 456", "", "---", "a  b", "\u{7F}del\u{1}ctl"]
        texts.append(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self))
        for text in texts {
            #expect(HeadingSlugger.slug(text) == HeadingSlugger.unicodeSlug(text), "\(text.debugDescription)")
        }
        #expect(HeadingSlugger.slug("Café Über") == "café-über")
        #expect(HeadingSlugger.slug("e\u{301}t\u{E9}") == "e\u{301}t\u{E9}")
    }
}
