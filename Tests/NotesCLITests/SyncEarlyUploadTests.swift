import Foundation
import Synchronization
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A folder's first sync into an account with nothing to pull uploads its new notes while the
/// scan still reads them (`EarlyUploads`), and ends as the general path does: every note once,
/// ids reserved before they are sent, a kill losing nothing, a path taken meanwhile settled
/// after the scan.
///
/// The notes are dated an hour back, as a folder of notes written earlier is: only a text kept
/// for the push (not modified within the racy margin) is sent early.
@Suite("Sync: new notes uploaded while the scan reads")
struct SyncEarlyUploadTests {
    /// Writes `notes` into folder `name`, each dated an hour back.
    private static func writeOld(_ h: LiveServer, _ name: String, _ notes: [String: String]) throws {
        for (path, text) in notes {
            try h.write(name, path, text)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                                  ofItemAtPath: h.folder(name) + "/" + path)
        }
    }

    @Test("with the first batch's answer held, only the first group of notes is reserved (the scan has not read on); killed there, the next sync uploads every note once")
    func firstBatchLeavesBeforeTheScanEnds() async throws {
        try await LiveServer.with(account: .loggedIn) { direct in
            let hold = try RequestHold.batches(upstreamPort: direct.server.port)
            defer { hold.proxy.stop() }
            let h = try await direct.through(hold)
            let notes = SyncFaultTests.corpus(1_500)
            try await h.initFolder("a")
            try Self.writeOld(h, "a", notes)
            hold.hold(1)
            let kill = try await KilledSync.run(["sync", h.folder("a")], environment: h.environment) { hold.isHolding }
            hold.proxy.release()
            #expect(kill.landedMidSync, "the upload ended before the kill: \(kill)")

            let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
            let rows = try index.rows()
            try index.close()
            #expect(rows.count == EarlyUploads.reserveGroup, "\(rows.count) rows (the general path records \(PushPhase.Reservations.slice) before its first batch)")
            #expect(rows.allSatisfy { notes[$0.base.path] != nil })

            _ = try await h.syncInProcess("a")
            #expect(try await h.serverNotes() == notes)
            #expect(try h.textTree("a") == notes)
            #expect(try h.indexIntegrity("a") == "ok")
            #expect(try await h.sync("a").isNoOp)
        }
    }

    /// Forwards to the real server, running a hook once at a moment the tests choose: after the
    /// first changes page is answered and before the engine sees it (another device writing
    /// between the pull and the upload), and before the first batch is sent (with its operations).
    struct HookedRemote: SyncRemote {
        let base: any SyncRemote
        var afterFirstPage: (@Sendable () async throws -> Void)?
        var beforeFirstBatch: (@Sendable ([BatchOperation]) throws -> Void)?
        let pageSeen = Flag(), batchSeen = Flag()

        func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
            let page = try await base.changes(since: since, limit: limit, includeContent: includeContent)
            if let afterFirstPage, pageSeen.setOnce() { try await afterFirstPage() }
            return page
        }

        func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
            if let beforeFirstBatch, batchSeen.setOnce() { try beforeFirstBatch(operations) }
            return try await base.batch(operations)
        }

        func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }
        func noteLimit() async -> Int { await base.noteLimit() }
        func limits() async -> ServerLimits { await base.limits() }
        // A folder may hold an attachment.
        func missingContent(_ hashes: [String]) async throws -> [String] { try await base.missingContent(hashes) }
        func putContent(hash: String, bytes: [UInt8]) async throws -> Bool { try await base.putContent(hash: hash, bytes: bytes) }
        func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]? {
            try await base.putContents(body, hashes: hashes)
        }
    }

    /// The rows the folder's index holds, counted by a `beforeFirstBatch` hook: the first group's
    /// with early uploads (`EarlyUploads.reserveGroup`), the first slice's on the general path
    /// (`PushPhase.Reservations.slice`).
    final class RowsAtFirstBatch: Sendable {
        let indexPath: String
        let rows = Mutex<Int?>(nil)

        init(_ h: LiveServer, _ folder: String) {
            indexPath = h.folder(folder) + "/.notes/index.sqlite"
        }

        var count: Int? { rows.withLock { $0 } }

        func record(_ operations: [BatchOperation]) throws {
            let index = try SyncIndex(path: indexPath)
            defer { try? index.close() }
            let count = try index.rows().count
            rows.withLock { $0 = count }
        }
    }

    @Test("another device's note at a path the folder also has new, written after the empty first page, is settled after the scan: both texts are kept, nothing is lost")
    func pathTakenMeanwhileIsSettledAfterTheScan() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("b")
            try await h.sync("b")
            try h.write("b", "f5/note-5.md", "written by b meanwhile\n")
            try await h.initFolder("a")
            let notes = SyncFaultTests.corpus(EarlyUploads.reserveGroup + 100)
            try Self.writeOld(h, "a", notes)
            let client = h, b = h.folder("b")
            let rows = RowsAtFirstBatch(h, "a")
            let report = try await h.syncInProcess("a", wrap: { remote in
                HookedRemote(base: remote, afterFirstPage: {
                    let result = try await client.notes(["sync", b])
                    #expect(result.exitCode == 0, "\(result.stderr)")
                }, beforeFirstBatch: rows.record)
            })
            #expect(rows.count == EarlyUploads.reserveGroup, "the notes were not uploaded early")
            #expect(report.uploaded >= notes.count - 1, "\(report)")
            let bSync = try await h.notes(["sync", h.folder("b")])
            #expect([0, 3].contains(bSync.exitCode), "\(bSync.stderr)")  // 3: the conflict copy is reported
            _ = try await h.syncInProcess("a")
            let a = try h.textTree("a")
            #expect(Set(a.values).isSuperset(of: Set(notes.values)), "a note of a's was lost")
            #expect(a.values.contains("written by b meanwhile\n"), "b's note was lost")
            #expect(try await h.serverNotes() == a)
            #expect(try h.textTree("b") == a)
        }
    }

    @Test("a note saved again after its early read, while its batch is on its way, is uploaded with the new text by the next sync: no edit is lost")
    func noteSavedAfterItsEarlyReadIsUploadedNextSync() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            var notes = SyncFaultTests.corpus(EarlyUploads.reserveGroup + 100)
            try Self.writeOld(h, "a", notes)
            let saved = Mutex<String?>(nil)
            let root = h.folder("a")
            let report = try await h.syncInProcess("a", wrap: { remote in
                HookedRemote(base: remote, beforeFirstBatch: { operations in
                    guard let path = operations.first?.path else { return }
                    saved.withLock { $0 = path }
                    try Data("saved again after the read\n".utf8).write(to: URL(fileURLWithPath: root + "/" + path))
                })
            })
            #expect(report.uploaded == notes.count)
            let path = try #require(saved.withLock { $0 })
            #expect(try await h.serverNotes()[path] == notes[path], "the batch carried the text as read")
            let next = try await h.sync("a")
            #expect(next.uploaded == 1, "\(next)")
            notes[path] = "saved again after the read\n"
            #expect(try await h.serverNotes() == notes)
            #expect(try await h.sync("a").isNoOp)
        }
    }

    @Test("early uploads end as the general path does: the same server notes, index rows and report for new notes, recent ones, an attachment, an ignored file and a name left in place; the first batch leaves after one group of notes")
    func earlyUploadsMatchTheGeneralPath() async throws {
        var notes = SyncFaultTests.corpus(EarlyUploads.reserveGroup + 100)
        notes[".notesignore"] = "ignored.md\n"
        notes["ignored.md"] = "never synced\n"
        notes["bidi\u{202E}name.md"] = "a name sync cannot store, left in place\n"
        let recent = ["recent/one.md": "saved a moment ago\n", "recent/two.md": "and this one\n"]
        let image = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        struct Outcome {
            var server: [String: String]
            var rows: Set<String>
            var uploaded: Int, local: [SyncReport.LocalChange], skipped: [SyncReport.Skipped], conflicts: Int
        }
        /// A path with the time of a conflict copy's name left out (the two syncs run at other times).
        func timeless(_ path: String) -> String { path.replacing(/conflict-a-[0-9]{8}-[0-9]{6}/, with: "conflict-a-TIME") }
        func outcome(early: Bool) async throws -> Outcome {
            var outcome: Outcome?
            try await LiveServer.with(account: .loggedIn) { h in
                try await h.initFolder("a")
                try Self.writeOld(h, "a", notes)
                for (path, text) in recent { try h.write("a", path, text) }
                try h.write("a", "img/pic.png", image)
                var options = SyncOptions()
                options.uploadsEarly = early
                let firstBatch = RowsAtFirstBatch(h, "a")
                let report = try await h.syncInProcess("a", options: options, wrap: { remote in
                    HookedRemote(base: remote, beforeFirstBatch: firstBatch.record)
                })
                let rowsAtFirstBatch = firstBatch.count
                if early {
                    #expect(report.changesRequests == 1, "the empty page only: \(report.changesRequests)")
                    #expect(rowsAtFirstBatch == EarlyUploads.reserveGroup, "\(String(describing: rowsAtFirstBatch)) rows")
                } else {
                    #expect(rowsAtFirstBatch == PushPhase.Reservations.slice, "\(String(describing: rowsAtFirstBatch)) rows")
                }
                let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
                let rows = Set(try index.rows().map { "\(timeless($0.base.path)) \($0.base.hash) \($0.base.rev > 0)" })
                try index.close()
                #expect(try await h.serverAttachments()["img/pic.png"]?.hash == SHA256.hex(of: [UInt8](image)))
                let server = Dictionary(try await h.serverNotes().map { (timeless($0.key), $0.value) }, uniquingKeysWith: { $1 })
                outcome = Outcome(server: server, rows: rows, uploaded: report.uploaded, local: report.local,
                                  skipped: report.skipped, conflicts: report.conflicts.count)
                // The name sync cannot store is reported again, with exit 1, and nothing else moves.
                let again = try await h.sync("a", expect: 1)
                #expect(again.isNoOp && again.skipped.filter { $0.reason == .unsyncableName }.map(\.path) == ["bidi\u{202E}name.md"], "\(again)")
                #expect(h.read("a", "bidi\u{202E}name.md") == notes["bidi\u{202E}name.md"], "the file stays where the user put it")
            }
            guard let outcome else { throw CLIError.failure("the sync with early uploads \(early ? "on" : "off") did not finish") }
            return outcome
        }
        // The paths are told apart by what the index holds at the first batch.
        #expect(EarlyUploads.reserveGroup != PushPhase.Reservations.slice)
        let early = try await outcome(early: true)
        let general = try await outcome(early: false)
        #expect(early.server == general.server, "server notes differ at \(Set(early.server.keys).symmetricDifference(general.server.keys).sorted())")
        #expect(early.rows == general.rows, "index rows differ: \(early.rows.symmetricDifference(general.rows).sorted())")
        #expect(early.uploaded == general.uploaded && early.conflicts == general.conflicts,
                "uploaded \(early.uploaded) against \(general.uploaded), conflicts \(early.conflicts) against \(general.conflicts)")
        #expect(early.local == general.local, "local changes differ: \(early.local.count) against \(general.local.count)")
        #expect(early.skipped == general.skipped, "\(early.skipped) against \(general.skipped)")
        // Every note but the dot-file, the ignored one and the one whose name sync cannot store.
        #expect(early.server.count == notes.count - 3 + recent.count)
    }
}
