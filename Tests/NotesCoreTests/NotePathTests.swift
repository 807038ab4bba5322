import Foundation
import Testing
@testable import NotesCore

@Suite("Note paths")
struct NotePathTests {
    @Test("accepts nested relative Markdown paths")
    func acceptsNestedPaths() throws {
        let path = try NotePath("projects/2026/plan.md")
        #expect(path.value == "projects/2026/plan.md")
        #expect(path.fileName == "plan.md")
        #expect(path.folder == "projects/2026")
    }

    @Test("normalises a macOS NFD name to NFC, so it does not churn between machines")
    func normalisesToNFC() throws {
        let decomposed = "cafe\u{301}.md"
        let path = try NotePath(decomposed)
        #expect(Array(path.value.utf8) == Array("caf\u{E9}.md".utf8))
    }

    @Test("paths differing only in case or normalisation clash")
    func collisionKeyFoldsCaseAndNormalisation() throws {
        #expect(try NotePath("Notes/Todo.md").collisionKey == NotePath("notes/TODO.md").collisionKey)
        #expect(try NotePath("caf\u{E9}.md").collisionKey == NotePath("CAFE\u{301}.md").collisionKey)
        #expect(try NotePath("a.md").collisionKey != NotePath("b.md").collisionKey)
    }

    @Test("refuses hostile and malformed paths", arguments: [
        ("", NotePathError.empty),
        ("/etc/passwd.md", .absolute),
        ("../escape.md", .dotSegment),
        ("a/../../b.md", .dotSegment),
        ("./a.md", .dotSegment),
        ("a//b.md", .emptySegment),
        ("a/", .emptySegment),
        ("a\\b.md", .forbiddenCharacter("backslash")),
        ("a\u{0}b.md", .forbiddenCharacter("NUL")),
        ("a\nb.md", .forbiddenCharacter("control character")),
        (".notes/index.md", .hiddenSegment(".notes")),
        ("dir/.hidden.md", .hiddenSegment(".hidden.md")),
        ("notes.txt", .notMarkdown),
        (".md", .hiddenSegment(".md")),
        ("folder/.md", .hiddenSegment(".md")),
    ])
    func refusesBadPaths(raw: String, expected: NotePathError) {
        #expect(throws: expected) { try NotePath(raw) }
    }

    @Test("refuses over-long paths and segments")
    func refusesLongPaths() {
        #expect(throws: NotePathError.segmentTooLong(maxBytes: 255)) { try NotePath(String(repeating: "x", count: 300) + ".md") }
        let deep = Array(repeating: String(repeating: "d", count: 200), count: 6).joined(separator: "/") + "/n.md"
        #expect(throws: NotePathError.tooLong(maxBytes: 1024)) { try NotePath(deep) }
    }

    @Test("the ASCII shortcut gives the collision key Foundation's case-folding gives")
    func asciiCollisionKeyMatchesFoundation() throws {
        let printable = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }.filter { $0 != "/" && $0 != "\\" }
        let path = try NotePath("Mixed Case/" + String(printable) + ".md")
        #expect(path.collisionKey == path.value.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping)
    }
}

@Suite("Note path text")
struct NotePathTextTests {
    @Test("the ASCII test answers as a byte-by-byte check, and nfc leaves ASCII as is and normalises the rest")
    func asciiTestMatchesByteCheck() {
        let names = ["a/b.md", "", "caf\u{65}\u{301}.md", "caf\u{E9}.md", "long/" + String(repeating: "x", count: 100) + ".md",
                     "\u{7F}.md", "small", String(repeating: "y", count: 31) + "\u{E9}", "\u{1F600}"]
        for name in names {
            #expect(NotePath.isASCII(name) == name.utf8.allSatisfy { $0 < 0x80 }, "\(name)")
            #expect(NotePath.nfc(name) == name.precomposedStringWithCanonicalMapping)
        }
        // A substring's copy and a string built from Foundation take the same answer.
        #expect(NotePath.isASCII(String("xa/b.md".dropFirst())) && !NotePath.isASCII(NSString(string: "caf\u{E9}") as String))
    }
}

@Suite("Note ids")
struct NoteIDTests {
    @Test("canonicalises UUIDs to lowercase and refuses anything else")
    func parsesUUIDs() {
        #expect(NoteID("6F9619FF-8B86-D011-B42D-00C04FC964FF")?.value == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(NoteID("not-a-uuid") == nil)
        #expect(NoteID("../../etc/passwd") == nil)
        #expect(NoteID().value.count == 36)
    }

    @Test("canonical ids are taken as they are; near misses still go through UUID parsing")
    func canonicalShortcut() {
        let id = NoteID()
        #expect(NoteID(id.value) == id)
        #expect(NoteID("6f9619ff-8b86-d011-b42d-00c04fc964fG") == nil)
        #expect(NoteID("6f9619ff8b86-d011-b42d-00c04fc964ff0") == nil)
        #expect(NoteID("6F9619FF-8b86-d011-b42d-00c04fc964ff")?.value == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        // Every place of a canonical id, hyphen and digit alike, is checked.
        let canonical = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
        for offset in 0..<36 {
            var bytes = Array(canonical.utf8)
            bytes[offset] = bytes[offset] == UInt8(ascii: "-") ? UInt8(ascii: "0") : UInt8(ascii: "g")
            #expect(NoteID(String(decoding: bytes, as: UTF8.self)) == nil, "place \(offset)")
        }
    }

    @Test("a fresh id is a version 7 UUID: its creation time in the first 48 bits, 62 random bits, any UUID parser reads it")
    func freshIDsAreVersion7() throws {
        // 2026-12-02T12:00:00.500Z, 1,796,212,800,500 ms, 0x01a236a03bf4 in hex.
        let instant = Date(timeIntervalSince1970: 1_796_212_800.5)
        let id = NoteID(version7At: instant)
        let hex = id.value.replacingOccurrences(of: "-", with: "")
        #expect(hex.prefix(12) == String(1_796_212_800_500, radix: 16).leftPadded(to: 12))
        #expect(hex.dropFirst(12).first == "7")
        #expect(["8", "9", "a", "b"].contains(hex.dropFirst(16).first.map(String.init) ?? ""))
        #expect(NoteID(id.value) == id)
        let parsed = try #require(UUID(uuidString: id.value))
        #expect(parsed.uuidString.lowercased() == id.value)
        // Two ids of the same millisecond differ by their random bits.
        #expect(NoteID(version7At: instant) != id)
        #expect(Set((0..<1000).map { _ in NoteID().value }).count == 1000)
    }

    @Test("ids made one after another sort in the order they were made, so new notes append to the servers' id indexes")
    func freshIDsSortByCreation() {
        let start = Date(timeIntervalSince1970: 1_796_212_800)
        // A millisecond apart, and a quarter of a millisecond apart (the 12 bits of fraction).
        let made = (0..<200).map { NoteID(version7At: start.addingTimeInterval(Double($0) * 0.00025)) }
        #expect(made == made.sorted())
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
