import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// New notes get their ids recorded in the index a slice at a time as the batches need them
/// (`PushPhase.Reservations`), not all before the first batch: these tests hold that to
/// docs/architecture.md's Sync invariants 7: every id a batch carries is in the index before the batch is sent.
@Suite("Sync id reservations", .serialized)
struct SyncReservationTests {
    @Test("every id a batch carries is in the index when the batch is sent, the first batch leaves before every id is recorded, and the upload converges")
    func idsRecordedBeforeTheirBatch() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            var notes: [String: String] = [:]
            for i in 0..<600 { notes[String(format: "d%d/n%03d.md", i % 7, i)] = "# Note \(i)\nline \(i)\n" }
            for (path, text) in notes { try h.write("a", path, text) }
            var options = SyncOptions()
            options.batchBytes = 4000
            let folder = try SyncFolder.find(from: h.folder("a"))
            let checker = IndexAtSend(indexPath: folder.indexPath)
            let report = try await h.syncInProcess("a", options: options, wrap: { IndexCheckingRemote(base: $0, checker: checker) })
            #expect(report.uploaded == notes.count)
            let sends = checker.sends
            #expect(sends.count > 10, "several batches")
            #expect(sends.allSatisfy { $0.missing.isEmpty }, "ids sent before they were recorded: \(sends.flatMap(\.missing))")
            #expect(sends.first.map { $0.recorded < notes.count } == true, "the first batch waited for every reservation")
            let index = try SyncIndex(path: folder.indexPath)
            defer { try? index.close() }
            let rows = try index.rows()
            #expect(rows.count == notes.count && rows.allSatisfy { $0.base.rev > 0 })
            #expect(try await h.serverNotes() == notes)
            #expect(try await h.sync("a").isNoOp)
        }
    }
}

/// What the index held when one batch was sent.
struct SendCheck: Sendable {
    /// The batch's ids the index did not hold.
    var missing: [NoteID]
    /// How many rows the index held.
    var recorded: Int
}

/// Reads the index (through a connection of its own, as another process would) when a batch is sent.
final class IndexAtSend: Sendable {
    let indexPath: String
    private let checks = Mutex<[SendCheck]>([])

    init(indexPath: String) { self.indexPath = indexPath }

    var sends: [SendCheck] { checks.withLock { $0 } }

    func check(_ ids: [NoteID]) {
        let check: SendCheck
        do {
            let index = try SyncIndex(path: indexPath)
            defer { try? index.close() }
            let recorded = Set(try index.rows().map(\.base.id))
            check = SendCheck(missing: ids.filter { !recorded.contains($0) }, recorded: recorded.count)
        } catch {
            check = SendCheck(missing: ids, recorded: -1)
        }
        checks.withLock { $0.append(check) }
    }
}

/// Forwards to the real server, checking the index first for each batch.
struct IndexCheckingRemote: SyncRemote {
    let base: any SyncRemote
    let checker: IndexAtSend

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        checker.check(operations.map(\.id))
        return try await base.batch(operations)
    }

    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse {
        checker.check(operations.map(\.id))
        return try await base.batch(operations, written: written)
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }

    func noteLimit() async -> Int { await base.noteLimit() }
}
