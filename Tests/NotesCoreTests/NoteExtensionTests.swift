import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Files ending in `.md` or `.markdown`, in any letter case, are notes. One predicate
/// (`EntryKind.noteExtension(of:)`) answers it, and everything that asks "is this a note" in the
/// shared model follows it: note paths, titles, wiki links and conflict copies.
@Suite("Note extensions")
struct NoteExtensionTests {
    @Test("the note extension is found as written, in any letter case, and only at the end of the file name",
          arguments: [("a.md", ".md"), ("docs/Guide.MD", ".MD"), ("x.Markdown", ".Markdown"), ("x.y.markdown", ".markdown"),
                      ("img/a.png", nil), ("dir.md/file", nil), ("sub/.md", nil), ("Makefile", nil), ("x.mdx", nil)] as [(String, String?)])
    func noteExtensionIsFoundAsWritten(path: String, expected: String?) {
        #expect(EntryKind.noteExtension(of: path).map(String.init) == expected)
        #expect(EntryKind(path: path) == (expected == nil ? .attachment : .note))
    }

    @Test("random names of ASCII and other letters get the answer the character-wise rule gives (the byte-wise path for ASCII names agrees with it)")
    func byteWiseAnswerAgreesWithCharacterWiseRule() {
        // The rule as written for characters: the last dot of the last name, not its first
        // character, followed by `md` or `markdown` in any case.
        func characterWise(_ path: String) -> String? {
            let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
            guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return nil }
            return ["md", "markdown"].contains(path[path.index(after: dot)...].lowercased()) ? String(path[dot...]) : nil
        }
        let pieces = ["a", "/", ".", "md", "MD", "mD", "markdown", "MarkDown", "x", "\u{E9}", "e\u{301}", "\u{212A}", "\u{0600}", " ", ".md", "/.md"]
        var random = SeededRandom(seed: 13)
        for _ in 0..<5_000 {
            let path = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(EntryKind.noteExtension(of: path).map(String.init) == characterWise(path), "\(path.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("a note path may end in .markdown or .MD; anything else is still not a note")
    func notePathsAcceptEveryNoteExtension() throws {
        #expect(try NotePath("docs/Guide.markdown").value == "docs/Guide.markdown")
        #expect(try NotePath("README.MD").kind == .note)
        #expect(try NotePath("caf\u{65}\u{301}.Markdown").value == "caf\u{E9}.Markdown")
        #expect(throws: NotePathError.notMarkdown) { try NotePath("notes.txt") }
        #expect(throws: NotePathError.notMarkdown) { try NotePath("dir.md/file") }
        #expect(throws: NotePathError.hiddenSegment(".markdown")) { try NotePath("sub/.markdown") }
    }

    @Test("a title without a heading drops any note extension")
    func titleDropsAnyNoteExtension() {
        let untitled = RenderedMarkdown(html: "", title: nil)
        #expect(untitled.title(orFileName: "Guide.markdown") == "Guide")
        #expect(untitled.title(orFileName: "README.MD") == "README")
        #expect(untitled.title(orFileName: "photo.png") == "photo.png")
        #expect(untitled.title(orFileName: ".md") == ".md")
    }

    @Test("[[Note]] finds Note.markdown when there is no Note.md, and Note.md first when both exist")
    func wikiLinksImplyEveryNoteExtension() {
        let only = WikiLinkResolver(files: ["docs/Guide.markdown", "img/guide.png"])
        #expect(only.resolve("Guide", from: "index.md") == "docs/Guide.markdown")
        #expect(only.resolve("guide.MARKDOWN", from: "index.md") == "docs/Guide.markdown")
        #expect(only.destination(for: WikiLink(target: "Guide", heading: "Set up"), from: "index.md") == "docs/Guide.markdown#set-up")
        let both = WikiLinkResolver(files: ["Note.markdown", "Note.md"])
        #expect(both.resolve("Note", from: "index.md") == "Note.md")
    }

    @Test("a conflict copy keeps the note's own extension, and is read back to that note")
    func conflictCopiesKeepTheNoteExtension() throws {
        let ms: Int64 = 1_764_600_000_000
        let copy = ConflictName.path(for: "docs/Guide.markdown", device: "laptop", millisecondsSinceEpoch: ms)
        #expect(copy.hasPrefix("docs/Guide.conflict-laptop-") && copy.hasSuffix(".markdown"), "\(copy)")
        #expect(try NotePath(copy).kind == .note)
        #expect(ConflictName.parse(copy)?.note == "docs/Guide.markdown")
        let upper = ConflictName.path(for: "README.MD", device: "laptop", millisecondsSinceEpoch: ms)
        #expect(upper.hasSuffix(".MD") && ConflictName.parse(upper)?.note == "README.MD", "\(upper)")
        // Copies named before, `.md` whatever the note's extension, are still recognised.
        #expect(ConflictName.parse("todo.conflict-laptop-20251201-143000.md")?.note == "todo.md")
    }
}
