import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 13: `notes status` is the dry run of `notes sync`: what it predicts is what the next
/// sync does, in the states that are easiest to predict wrong: uploads left unanswered or cut
/// off by `kill -9`, a conflict, a case clash, the mass-delete guard, and the server down.
@Suite("Sync status is the dry run")
struct SyncStatusTests {
    @Test("after a sync whose uploads never got an answer, status lists every upload left and the next sync does exactly that")
    func statusAfterAnInterruptedUpload() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            for i in 0..<40 { try h.write("a", "new/n\(i).md", "note \(i)\n" + String(repeating: "text ", count: 400) + "\n") }
            // The first batch reaches the server and the sync dies before its answer is recorded;
            // the other batches were never sent (small batches make several).
            var options = SyncOptions()
            options.batchBytes = 8 * 1024
            await #expect(throws: URLError.self) {
                _ = try await h.syncInProcess("a", options: options, wrap: { FirstBatchThenCrash(base: $0) })
            }
            let onServer = try await h.serverNotes().count
            #expect(onServer > 1 && onServer < 41, "the crash came mid-upload: \(onServer) notes on the server")
            let status = try await h.status("a")
            // The notes of the first batch come back in the feed and are recorded, not sent again.
            #expect(status.uploaded == 41 - onServer, "\(status)")
            #expect(status.local.filter { $0.change == .new }.count == 40)
            let sync = try await h.sync("a")
            h.expectSameOutcome(predicted: status, done: sync)
            #expect(try await h.serverNotes().count == 41)
        }
    }

    @Test("kill -9 of notes sync right after its first batch: status says what is left (not \"Nothing to sync\"), and the next sync does it")
    func statusAfterAKilledSync() async throws {
        try await LiveServer.with(account: .loggedIn) { direct in
            let hold = try RequestHold.batches(upstreamPort: direct.server.port)
            defer { hold.proxy.stop() }
            let h = try await direct.through(hold)
            try await h.twoFolders([("seed.md", "s\n")])
            let notes = SyncFaultTests.corpus(600)
            for (path, text) in notes { try h.write("a", path, text) }
            // Killed while the server's answer to its second batch is held back: mid-upload, by
            // an event, not a delay.
            hold.hold(2)
            let kill = try await KilledSync.run(["sync", h.folder("a")], environment: h.environment) {
                hold.isHolding
            }
            hold.proxy.release()
            #expect(kill.sawTrigger)
            #expect(kill.killedBySignal, "the sync ended before the kill")
            let onServer = try await h.serverNotes().count
            #expect(onServer < 601, "the kill came before the last batch")
            let status = try await h.status("a")
            #expect(!status.isNoOp && status.uploaded > 0, "\(status)")
            let sync = try await h.sync("a")
            h.expectSameOutcome(predicted: status, done: sync)
            #expect(try await h.serverNotes().count == 601)
        }
    }

    @Test("the same line edited on two devices: status predicts the conflict copy, with its reason, that sync makes (exit 3)")
    func statusPredictsAnOverlappingEdit() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("todo.md", "milk\neggs\n"), ("plan.md", "one\ntwo\nthree\nfour\n")])
            try h.write("a", "todo.md", "milk\nbread\n")
            try h.write("b", "todo.md", "milk\ncheese\n")
            try h.write("a", "plan.md", "ONE\ntwo\nthree\nfour\n")
            try h.write("b", "plan.md", "one\ntwo\nthree\nFOUR\n")
            try await h.sync("a")
            let status = try await h.status("b")
            #expect(status.merged == 1 && status.conflicts.map(\.path) == ["todo.md"], "\(status)")
            #expect(status.conflicts.first?.reason == .overlappingEdit)
            let sync = try await h.sync("b", expect: 3)
            h.expectSameOutcome(predicted: status, done: sync)
        }
    }

    @Test("a local IDEAS.md beside a remote ideas.md: status predicts a case-clash conflict copy, and sync makes it")
    func statusPredictsACaseClash() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            try h.write("a", "ideas.md", "from a\n")
            try await h.sync("a")
            try h.write("b", "IDEAS.md", "from b\n")
            let status = try await h.status("b")
            #expect(status.conflicts.map(\.path) == ["IDEAS.md"] && status.conflicts.first?.reason == .caseClash, "\(status)")
            let sync = try await h.sync("b", expect: 3)
            h.expectSameOutcome(predicted: status, done: sync)
            let copy = try #require(sync.conflicts.first?.copy)
            #expect(try await h.serverNotes() == ["seed.md": "s\n", "ideas.md": "from a\n", copy: "from b\n"])
        }
    }

    @Test("2,000-style mass delete: status says the guard will stop the sync, with the count the guard uses")
    func statusAndTheGuardAgreeOnAMassDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders((0..<32).map { ("n\($0).md", "\($0)\n") })
            for i in 0..<30 { try h.remove("b", "n\(i).md") }
            try await h.sync("b", ["--allow-mass-delete"])
            // Pages of 10 make the guard count across pages: it must count every page, not the first.
            var options = SyncOptions()
            options.dryRun = true
            options.pageSize = 10
            await #expect(throws: MassDeleteRefusal.self) { _ = try await h.syncInProcess("a", options: options) }
            let status = try await h.status("a")
            #expect(status.massDelete == MassDeleteCheck(side: .remote, deleting: 30, total: 32, folder: h.folder("a")), "\(status)")
            #expect(status.changes.isEmpty)
            let refused = try await h.notes(["sync", h.folder("a"), "--json"])
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("would delete 30 of 32 notes"), "\(refused.stderr)")
            let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(refused.stdout.utf8))
            #expect(report.massDelete == status.massDelete)
            #expect(try h.tree("a").count == 32)
            let human = try await h.notes(["status", h.folder("a")])
            #expect(human.stdout.contains("The next sync would stop: it would delete 30 of 32 notes"), "\(human.stdout)")
        }
    }

    @Test("with the server down, status lists what changed here since the last sync, says the server's side is unknown, exits 5")
    func offlineStatusListsLocalChanges() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("edit.md", "v1\n"), ("old.md", "moved\n"), ("drop.md", "d\n"), ("keep.md", "k\n")])
            try h.write("a", "edit.md", "v2\n")
            try h.move("a", "old.md", "sub/new-name.md")
            try h.remove("a", "drop.md")
            try h.write("a", "fresh.md", "new\n")
            h.server.kill()
            await h.server.waitForExit()
            let result = try await h.notes(["status", h.folder("a"), "--json"])
            #expect(result.exitCode == 5, "\(result.stderr)")
            let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
            #expect(report.remote == .unknown)
            #expect(report.local == [
                .init(change: .deleted, path: "drop.md"),
                .init(change: .modified, path: "edit.md"),
                .init(change: .new, path: "fresh.md"),
                .init(change: .renamed, path: "sub/new-name.md", from: "old.md"),
            ], "\(report.local)")
            let human = try await h.notes(["status", h.folder("a")])
            #expect(human.exitCode == 5)
            #expect(human.stdout.contains("modified  edit.md") && human.stdout.contains("renamed   sub/new-name.md (from old.md)"), "\(human.stdout)")
            #expect(human.stdout.contains("could not be reached"))
        }
    }
}

/// Sends the first batch to the real server, then fails as a `kill -9` right after it would:
/// the answer is never recorded and the later batches are never sent.
final class FirstBatchThenCrash: SyncRemote, Sendable {
    let base: any SyncRemote
    /// The first batch's request, sent to the end whatever happens to the sync that asked.
    private let first = Mutex<Task<Void, Never>?>(nil)

    init(base: any SyncRemote) {
        self.base = base
    }

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }

    /// The first batch reaches the server and gets its answer; then that call and every other
    /// fail as a lost connection. The engine sends two batches at once, so a second call may
    /// come while the first is on its way: it waits for the first's answer before failing,
    /// or the sync would end (and cancel the first) before the first batch reached the server.
    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        let base = self.base
        let sending = first.withLock { first in
            if let first { return first }
            let task = Task { _ = try? await base.batch(operations) }
            first = task
            return task
        }
        await sending.value
        throw URLError(.networkConnectionLost)
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }


    func noteLimit() async -> Int { await base.noteLimit() }
}

extension LiveServer {
    /// `notes status NAME --json` and its decoded report; expects exit 0.
    func status(_ name: String, _ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncReport {
        let result = try await notes(["status", folder(name), "--json"] + extra, sourceLocation: sourceLocation)
        #expect(result.exitCode == 0, "status \(name) exited \(result.exitCode): \(result.stderr)", sourceLocation: sourceLocation)
        let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
        #expect(report.dryRun, sourceLocation: sourceLocation)
        return report
    }

    /// Expects a dry run's prediction to equal what the sync did, field by field; conflict copies
    /// compare by note and reason (the time in a copy's name is when each ran), and the order of
    /// changes by path (new notes get random ids, which order the uploads).
    func expectSameOutcome(predicted: SyncReport, done: SyncReport, _ context: String = "",
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(SyncOutcome(predicted) == SyncOutcome(done),
                "\(context)\nstatus: \(SyncOutcome(predicted))\nsync:   \(SyncOutcome(done))", sourceLocation: sourceLocation)
    }
}

/// What a report says will change, in a form a prediction and an outcome can be compared in.
struct SyncOutcome: Equatable, CustomStringConvertible {
    var counts: [Int]
    var changes: [String]
    var conflicts: [String]
    var local: [String]
    var massDelete: MassDeleteCheck?

    init(_ report: SyncReport) {
        counts = [report.uploaded, report.downloaded, report.renamed, report.deleted, report.merged]
        changes = report.changes.map { "\($0.action.rawValue) \(Self.stable($0.path))" }.sorted()
        conflicts = report.conflicts.map { "\($0.path): \($0.reason.rawValue)" }.sorted()
        local = report.local.map { "\($0.change.rawValue) \($0.path) \($0.from ?? "")" }
        massDelete = report.massDelete
    }

    /// A conflict copy's name without its time, which differs between two runs.
    static func stable(_ path: String) -> String {
        path.replacingOccurrences(of: #"\.conflict-(.+)-\d{8}-\d{6}(-\d+)?\.md$"#, with: ".conflict-$1.md", options: .regularExpression)
    }

    var description: String {
        "counts \(counts) changes \(changes) conflicts \(conflicts) local \(local) massDelete \(String(describing: massDelete))"
    }
}
