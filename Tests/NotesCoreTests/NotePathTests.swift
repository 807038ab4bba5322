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
    }
}
