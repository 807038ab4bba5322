import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// The push fills each batch up to `SyncOptions.batchBytes` counted as sent (JSON escapes
/// included), writing each operation once and sending those bytes.
@Suite("Sync batch filling", .serialized)
struct SyncBatchFillTests {
    @Test("an upload fills each batch up to its size on the wire, escapes counted, sends each operation as written, and converges")
    func batchesFillToTheirSizeOnTheWire() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            var notes: [String: String] = [:]
            for i in 0..<90 {
                // Quotes, backslashes, tabs and newlines grow on the wire; text that
                // is not ASCII does not.
                let escapes = String(repeating: "say \"hi\"\t\\ \n", count: i % 7)
                notes[String(format: "n%02d.md", i)] = "# Note \(i)\n\(escapes)日本語 \(String(repeating: "x", count: i * 7))\n"
            }
            for (path, text) in notes { try h.write("a", path, text) }
            var options = SyncOptions()
            options.batchBytes = 1500
            let recorder = BatchRecorder()
            let report = try await h.syncInProcess("a", options: options, wrap: { BatchRecording(base: $0, recorder: recorder) })
            #expect(report.uploaded == notes.count)
            let batches = recorder.batches.sorted { $0.ids[0] < $1.ids[0] }
            #expect(batches.count > 10, "several batches")
            #expect(batches.flatMap(\.ids).count == notes.count, "each note in one batch")
            for (index, batch) in batches.enumerated() {
                #expect(batch.written, "sent through the written operations")
                #expect(batch.writtenMatch, "each operation sent as its own wireJSON()")
                #expect(batch.bodyBytes <= options.batchBytes || batch.ids.count == 1, "batch \(index): \(batch.bodyBytes) bytes")
                if index + 1 < batches.count {
                    let next = batches[index + 1].firstOperationBytes
                    #expect(batch.bodyBytes + 1 + next > options.batchBytes, "batch \(index) had room for the next operation")
                }
            }
            #expect(try await h.serverNotes() == notes)
            #expect(try await h.sync("a").isNoOp)
        }
    }
}

/// What one batch request carried.
struct RecordedBatch: Sendable {
    var ids: [NoteID]
    var bodyBytes: Int
    var firstOperationBytes: Int
    var written: Bool
    var writtenMatch: Bool
}

final class BatchRecorder: Sendable {
    private let recorded = Mutex<[RecordedBatch]>([])
    var batches: [RecordedBatch] { recorded.withLock { $0 } }
    func add(_ batch: RecordedBatch) { recorded.withLock { $0.append(batch) } }
}

/// Forwards to the real server, recording each batch's operations and body size.
struct BatchRecording: SyncRemote {
    let base: any SyncRemote
    let recorder: BatchRecorder

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        record(operations, written: operations.map { $0.wireJSON() }, fast: false)
        return try await base.batch(operations)
    }

    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse {
        record(operations, written: written, fast: true)
        return try await base.batch(operations, written: written)
    }

    private func record(_ operations: [BatchOperation], written: [[UInt8]], fast: Bool) {
        recorder.add(RecordedBatch(ids: operations.map(\.id), bodyBytes: BatchRequest.wireJSON(written: written).count,
                                   firstOperationBytes: written.first?.count ?? 0, written: fast,
                                   writtenMatch: written == operations.map { $0.wireJSON() }))
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }

    func noteLimit() async -> Int { await base.noteLimit() }
}
