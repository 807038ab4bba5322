import Foundation
import NotesCommandLine
import NotesCore
import Testing
@testable import notes_cli

/// The pure parts of the history commands: how PATH is read in a folder, and how revisions
/// become log lines.
@Suite("History: paths and log lines")
struct HistoryPathAndLogTests {
    static let folder = SyncFolder(root: "/home/ada/notes", config: .init(server: "http://x", device: "d", caseInsensitive: false))

    @Test func pathsInsideAFolderAreRelativeToTheCurrentDirectory() throws {
        let folder = Self.folder
        #expect(try HistoryTarget.resolve("x.md", in: folder, cwd: "/home/ada/notes/sub").value == "sub/x.md")
        #expect(try HistoryTarget.resolve("../top.md", in: folder, cwd: "/home/ada/notes/sub").value == "top.md")
        #expect(try HistoryTarget.resolve("./a/b.md", in: folder, cwd: "/home/ada/notes").value == "a/b.md")
        #expect(try HistoryTarget.resolve("/home/ada/notes/sub/x.md", in: folder, cwd: "/tmp").value == "sub/x.md")
        #expect(throws: UsageError.self) { try HistoryTarget.resolve("../../elsewhere.md", in: folder, cwd: "/home/ada/notes/sub") }
        #expect(throws: UsageError.self) { try HistoryTarget.resolve("/home/ada/notesX/x.md", in: folder, cwd: "/home/ada/notes") }
        #expect(try HistoryTarget.resolve("img/x.png", in: folder, cwd: "/home/ada/notes").value == "img/x.png", "attachments have history too")
        #expect(throws: UsageError.self) { try HistoryTarget.resolve(".hidden/x.md", in: folder, cwd: "/home/ada/notes") }
        // Outside any folder, the path is the one stored on the server.
        #expect(try HistoryTarget.resolve("sub/x.md", in: nil, cwd: "/home/ada/notes/sub").value == "sub/x.md")
        #expect(throws: UsageError.self) { try HistoryTarget.resolve("/abs.md", in: nil, cwd: "/") }
    }

    @Test func logLinesSayWhatEachRevisionChanged() {
        let id = NoteID()
        func revision(_ rev: Int64, _ path: String, _ content: String, deleted: Bool = false) -> RevisionResource {
            RevisionResource(id: id, rev: rev, path: path, hash: SHA256.hex(of: content), size: content.utf8.count,
                             deleted: deleted, createdAt: "2026-12-01T04:00:00.000Z", content: nil)
        }
        let entries = LogCommand.classify([
            revision(9, "b/new.md", "three"), revision(8, "a.md", "two"), revision(7, "a.md", "", deleted: true),
            revision(5, "a.md", "two"), revision(4, "old.md", "two"), revision(3, "old.md", "one"), revision(1, "old.md", "zero"),
        ])
        #expect(entries.map(\.change) == ["renamed+edited", "restored", "deleted", "renamed", "edited", "edited", "created"])
        #expect(entries.map(\.renamedFrom) == ["a.md", nil, nil, "old.md", nil, nil, nil])
        #expect(HistoryTarget.shortTime("2026-12-01T04:00:00.123Z") == "2026-12-01T04:00:00Z")
    }
}
