import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A dry run reads the index beside a sync that writes it (`notes status` beside a watcher):
/// what it reads must be one committed state, rows and cursor together, however the writer goes on.
@Suite("Sync index frozen for a dry run")
struct SyncIndexFreezeTests {
    private static func row(_ path: String, rev: Int64) -> IndexRow {
        IndexRow(base: SyncBase(id: NoteID(), path: path, rev: rev, hash: "h\(rev)"), diskPath: path,
                 stat: FileStat(size: 1, mtimeNanoseconds: 2, inode: 3))
    }

    @Test("a frozen reader sees the rows and cursor of one commit while another connection commits more, and cannot write")
    func frozenReaderSeesOneCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("index.sqlite").path
        let writer = try SyncIndex(path: path)
        defer { try? writer.close() }
        try writer.commit([.upsert(Self.row("a.md", rev: 1))], cursor: "1")

        let reader = try SyncIndex(path: path)
        defer { try? reader.close() }
        try reader.freezeForReading()
        try writer.commit([.upsert(Self.row("b.md", rev: 2)), .upsert(Self.row("c.md", rev: 3))], cursor: "3")
        #expect(try reader.rows().map(\.base.path) == ["a.md"])
        #expect(try reader.cursor() == "1")
        #expect(throws: (any Error).self) { try reader.commit([.upsert(Self.row("d.md", rev: 4))], cursor: "4") }

        // The writer was never blocked, and a fresh reader sees its last commit.
        try writer.commit([], cursor: "5")
        let fresh = try SyncIndex(path: path)
        defer { try? fresh.close() }
        try fresh.freezeForReading()
        #expect(try Set(fresh.rows().map(\.base.path)) == ["a.md", "b.md", "c.md"])
        #expect(try fresh.cursor() == "5")
    }
}
