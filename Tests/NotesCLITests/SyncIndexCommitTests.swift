import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `SyncIndex.commit` writes runs of upserts several rows to a statement: these tests hold it to
/// what applying the same changes one at a time leaves, in the order given.
@Suite("Sync index commit")
struct SyncIndexCommitTests {
    private static func row(_ id: NoteID, _ path: String, rev: Int64, hash: String = "h", disk: String? = nil,
                            stat: FileStat = FileStat(size: 1, mtimeNanoseconds: 2, inode: 3)) -> IndexRow {
        IndexRow(base: SyncBase(id: id, path: path, rev: rev, hash: hash), diskPath: disk ?? path, stat: stat)
    }

    /// The rows that applying `changes` one at a time, in order, leaves.
    private static func applied(_ changes: [IndexChange], to start: [NoteID: IndexRow] = [:]) -> [NoteID: IndexRow] {
        var rows = start
        for change in changes {
            switch change {
            case .upsert(let row): rows[row.base.id] = row
            case .remove(let id): rows[id] = nil
            }
        }
        return rows
    }

    private static func stored(_ index: SyncIndex) throws -> [NoteID: IndexRow] {
        Dictionary(try index.rows().map { ($0.base.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("every run length, from one row to several full statements and a remainder, stores each row once")
    func everyRunLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let index = try SyncIndex(path: directory.appending("index.sqlite").path)
        defer { try? index.close() }
        var expected: [NoteID: IndexRow] = [:]
        for count in [1, 2, 3, 7, 31, 32, 33, 64, 95, 100] {
            let changes = (0..<count).map { IndexChange.upsert(Self.row(NoteID(), "n\(count)/\($0).md", rev: Int64($0))) }
            try index.commit(changes)
            expected = Self.applied(changes, to: expected)
            #expect(try Self.stored(index) == expected)
        }
    }

    @Test("a row given twice in one run, removes between upserts and updates of rows already there end as applied in order")
    func orderWithinARun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let index = try SyncIndex(path: directory.appending("index.sqlite").path)
        defer { try? index.close() }
        let ids = (0..<80).map { _ in NoteID() }
        let reserved = ids.map { IndexChange.upsert(Self.row($0, "a/\($0.value).md", rev: 0)) }
        try index.commit(reserved)
        var expected = Self.applied(reserved)
        var changes: [IndexChange] = []
        for (position, id) in ids.enumerated() {
            changes.append(.upsert(Self.row(id, "a/\(id.value).md", rev: 1, hash: "first")))
            if position % 5 == 0 { changes.append(.upsert(Self.row(id, "b/\(id.value).md", rev: 2, hash: "second", disk: "B/\(id.value).md"))) }
            if position % 7 == 0 { changes.append(.remove(id)) }
            if position % 14 == 0 { changes.append(.upsert(Self.row(id, "c/\(id.value).md", rev: 3, hash: "again"))) }
        }
        try index.commit(changes, cursor: "cursor-1")
        expected = Self.applied(changes, to: expected)
        #expect(try Self.stored(index) == expected)
        #expect(try index.cursor() == "cursor-1")
        #expect(try index.integrityCheck() == "ok")
    }
}
