import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A push moves the cursor over its own writes from the batch answers' feed spans
/// (`OwnWriteChain`), instead of reading them back from the changes feed, and only while the
/// spans chain from the cursor: another device's write between them is still pulled, and a kill
/// never leaves the cursor ahead of the rows (docs/architecture.md, Sync invariants 6, 7).
@Suite("Sync: own writes are not read back")
struct SyncOwnWritesTests {
    @Test("an upload into an empty account stores the cursor from its chained batches: one changes request in all, the server logs no other, and the next sync is a no-op")
    func uploadDoesNotReadItsOwnWritesBack() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let notes = SyncFaultTests.corpus(150)  // ~2 KB each: several 64 KiB batches
            for (path, text) in notes { try h.write("a", path, text) }
            let changesBefore = h.logCount("GET /v1/changes"), batchesBefore = h.logCount("POST /v1/batch")
            let upload = try await h.sync("a")
            #expect(upload.uploaded == notes.count)
            #expect(upload.changesRequests == 1, "only the first page, asked for before the scan")
            #expect(try await waitUntil { h.logCount("POST /v1/batch") - batchesBefore >= 3 }, "one batch proves no chain")
            #expect(try await waitUntil { h.logCount("GET /v1/changes") == changesBefore + 1 })

            // The stored cursor is the feed's end: nothing of the upload is left to read after it.
            let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
            let cursor = try #require(try index.cursor())
            try index.close()
            let rest = try await h.apiClient().json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: [("since", cursor)]))
            #expect(rest.changes.isEmpty && !rest.hasMore, "\(rest.changes.count) changes after the stored cursor")

            let again = try await h.sync("a")
            #expect(again.isNoOp && again.changesRequests == 1)
            try await h.initFolder("b")
            try await h.sync("b")
            #expect(try h.textTree("b") == notes)
            #expect(try await h.serverNotes() == notes)
        }
    }

    @Test("another device's write between two of the client's batches breaks the chain: the pull after the push brings it")
    func writeBetweenBatchesIsPulled() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("b")
            try await h.sync("b")
            try h.write("b", "from-b.md", "written by b mid-upload\n")
            try await h.initFolder("a")
            var notes: [String: String] = [:]
            for i in 0..<16 { notes["n\(i).md"] = "note \(i)\n" }
            for (path, text) in notes { try h.write("a", path, text) }
            var options = SyncOptions()
            // Sixteen batches: b writes once one of the first answers is in, and the engine sends no
            // more than `batchesInFlight - 1` further batches before it takes that answer in, so
            // the last ones are written after b's note.
            options.batchOperations = 1
            #expect(notes.count / options.batchOperations > 2 * options.batchesInFlight - 1)
            let client = h, b = h.folder("b")
            let report = try await h.syncInProcess("a", options: options, wrap: { remote in
                AfterFirstBatch(base: remote) {
                    let result = try await client.notes(["sync", b])
                    #expect(result.exitCode == 0, "\(result.stderr)")
                }
            })
            #expect(report.uploaded == notes.count)
            #expect(h.read("a", "from-b.md") == "written by b mid-upload\n", "b's note was skipped: \(report)")
            #expect(report.changesRequests >= 2)
            try await h.sync("b")
            notes["from-b.md"] = "written by b mid-upload\n"
            #expect(try await h.serverNotes() == notes)
            #expect(try h.textTree("a") == notes && h.textTree("b") == notes)
            #expect(try await h.sync("a").isNoOp)
        }
    }

    @Test("a client killed while a later batch's answer is held keeps its cursor no further than the rows it recorded; the next sync loses and duplicates nothing")
    func killedAfterChainedBatchesLosesNothing() async throws {
        try await LiveServer.with(account: .loggedIn) { direct in
            let hold = try RequestHold.batches(upstreamPort: direct.server.port)
            defer { hold.proxy.stop() }
            let h = try await direct.through(hold)
            let notes = SyncFaultTests.corpus(300)
            try await h.initFolder("a")
            for (path, text) in notes { try h.write("a", path, text) }
            // The batch after a full window: it leaves only once the first answer is taken in
            // and recorded, so the cursor has moved when the kill lands (an earlier batch could be
            // held, and the kill land, before any answer was taken in).
            hold.hold(SyncOptions().batchesInFlight + 1)
            let kill = try await KilledSync.run(["sync", h.folder("a")], environment: h.environment) { hold.isHolding }
            hold.proxy.release()
            #expect(kill.landedMidSync, "the upload ended before the kill: \(kill)")

            let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
            let cursor = try #require(try index.cursor().flatMap { Int64($0) })
            let rows = Dictionary(try index.rows().map { ($0.base.id, $0) }, uniquingKeysWith: { $1 })
            try index.close()
            #expect(cursor > 0, "the cursor did not move over the batches answered before the kill")
            // Every change up to the cursor is recorded, at its revision: the cursor is not ahead of the rows.
            let server = try await h.serverResources()
            let claimed = server.values.filter { $0.rev <= cursor }
            #expect(!claimed.isEmpty)
            for note in claimed {
                #expect(rows[note.id]?.base.rev == note.rev, "\(note.path) at \(note.rev) is behind the cursor \(cursor) but not recorded")
            }

            try await h.sync("a")
            #expect(try await h.serverNotes() == notes)
            #expect(try h.textTree("a") == notes)
            #expect(try h.indexIntegrity("a") == "ok")
            #expect(try await h.sync("a").isNoOp)
        }
    }

    @Test("the chain links spans answered out of order, stops at a gap, never starts without a cursor, and vouches for no push with an unspanned write")
    func chainLinksOnlyContiguousSpans() {
        func answer(_ before: String?, _ after: String?, status: Int = 201) -> BatchResponse {
            BatchResponse(results: [BatchResult(id: NoteID(), status: status)], cursorBefore: before, cursorAfter: after)
        }
        var chain = OwnWriteChain(from: "10")
        #expect(chain.add(answer("20", "30")) == nil, "answered first, applied second: waits")
        #expect(chain.add(answer("10", "20")) == "30")
        #expect(chain.coversPush)
        #expect(chain.add(answer("31", "40")) == nil, "another device wrote 31")
        #expect(chain.reach == "30" && !chain.coversPush)

        var unstarted = OwnWriteChain(from: nil)
        #expect(unstarted.add(answer("0", "5")) == nil && !unstarted.coversPush)

        var fullWalk = OwnWriteChain(from: "full-10")
        #expect(fullWalk.add(answer("10", "12")) == nil && !fullWalk.coversPush)

        var older = OwnWriteChain(from: "10")
        #expect(older.add(answer(nil, nil, status: 412)) == nil)
        #expect(!older.coversPush, "no span at all: nothing vouches for the push")
        #expect(older.add(answer("10", "11")) == "11" && older.coversPush)
        #expect(older.add(answer(nil, nil, status: 200)) == nil)
        #expect(!older.coversPush, "a write without a span (a server before them)")
    }
}

/// Forwards to the real server and runs `hook` once, after the first batch's answer came back
/// and before the engine sees it: another device writing while this one uploads.
struct AfterFirstBatch: SyncRemote {
    let base: any SyncRemote
    let hook: @Sendable () async throws -> Void
    let fired = Flag()

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        let answer = try await base.batch(operations)
        if fired.setOnce() { try await hook() }
        return answer
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }

    func noteLimit() async -> Int { await base.noteLimit() }
}
