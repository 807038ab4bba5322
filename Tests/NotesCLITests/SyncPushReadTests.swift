import Foundation
import Synchronization
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The push sends the text the scan read only while the file is still as the scan found it:
/// a file saved between the scan and the push is uploaded with what it holds when it is sent,
/// in the same sync, and the index records that file, so the next sync has nothing to send.
///
/// The files are given a modification time an hour old before the sync, as a folder of notes
/// edited earlier has: the scan keeps what it read of those (a file saved a moment before the
/// sync is read again by the push in any case).
@Suite("Sync: a file saved between the scan and the push")
struct SyncPushReadTests {
    /// Forwards to the real server; the second changes request (the pull's, after the scan: the
    /// first is asked for while the folder is scanned) runs `hook` first.
    struct AfterScanRemote: SyncRemote {
        let base: any SyncRemote
        let hook: @Sendable () -> Void
        let calls = CallCounter()

        func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
            if calls.next() == 2 { hook() }
            return try await base.changes(since: since, limit: limit, includeContent: includeContent)
        }

        func batch(_ operations: [BatchOperation]) async throws -> BatchResponse { try await base.batch(operations) }
        func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }
        func noteLimit() async -> Int { await base.noteLimit() }
        func limits() async -> ServerLimits { await base.limits() }
    }

    /// Two notes on the server from folder `b`, so a pull of one change a page asks a second
    /// time, after the scan.
    private static func serverWithTwoNotes(_ h: LiveServer) async throws {
        try await h.initFolder("b")
        try h.write("b", "r1.md", "remote one\n")
        try h.write("b", "r2.md", "remote two\n")
        try await h.sync("b")
    }

    /// Writes `text` at `path` of folder `name` and dates it an hour back.
    private static func writeOld(_ h: LiveServer, _ name: String, _ path: String, _ text: String) throws {
        try h.write(name, path, text)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                              ofItemAtPath: h.folder(name) + "/" + path)
    }

    /// Syncs folder `a` one change a page, `path` rewritten with `text` after the scan.
    private static func syncRewritingAfterScan(_ h: LiveServer, _ path: String, _ text: String) async throws -> SyncReport {
        var options = SyncOptions()
        options.pageSize = 1
        let file = h.folder("a") + "/" + path
        return try await h.syncInProcess("a", options: options, wrap: { remote in
            AfterScanRemote(base: remote, hook: { try? Data(text.utf8).write(to: URL(fileURLWithPath: file)) })
        })
    }

    @Test("a new note saved again between the scan and the push is uploaded with its new text in the same sync")
    func newNoteSavedAfterScanIsUploadedWithNewText() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.serverWithTwoNotes(h)
            try await h.initFolder("a")
            try Self.writeOld(h, "a", "n.md", "as the scan read it\n")
            try Self.writeOld(h, "a", "other.md", "left alone\n")
            let report = try await Self.syncRewritingAfterScan(h, "n.md", "saved again after the scan, longer\n")
            #expect(report.uploaded == 2, "\(report)")
            let server = try await h.serverNotes()
            #expect(server["n.md"] == "saved again after the scan, longer\n")
            #expect(server["other.md"] == "left alone\n")
            let next = try await h.syncInProcess("a")
            #expect(next.uploaded == 0 && next.filesRead == 0, "the index holds the file as sent: \(next)")
        }
    }

    @Test("a new note read ahead in a later window of the scan and saved again before the push is uploaded with its new text")
    func newNoteReadAheadSavedAfterScanIsUploadedWithNewText() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.serverWithTwoNotes(h)
            try await h.initFolder("a")
            // More than one window of `NewFileReadAhead` (512 files).
            for index in 0..<600 { try Self.writeOld(h, "a", "n\(index).md", "note \(index)\n") }
            let report = try await Self.syncRewritingAfterScan(h, "n550.md", "note 550 saved again after the scan\n")
            #expect(report.uploaded == 600, "\(report)")
            let server = try await h.serverNotes()
            #expect(server["n550.md"] == "note 550 saved again after the scan\n")
            #expect(server["n549.md"] == "note 549\n" && server["n0.md"] == "note 0\n")
            let next = try await h.syncInProcess("a")
            #expect(next.uploaded == 0 && next.filesRead == 0, "the index holds the file as sent: \(next)")
        }
    }

    @Test("an edited note saved again between the scan and the push is uploaded with its newest text in the same sync")
    func editedNoteSavedAfterScanIsUploadedWithNewestText() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.serverWithTwoNotes(h)
            try await h.initFolder("a")
            try h.write("a", "n.md", "first\n")
            try await h.sync("a")
            try await h.sync("a")
            try Self.writeOld(h, "a", "n.md", "edited before the sync\n")
            try await h.notes(["init", h.folder("c"), "--server", h.serverURL, "--device", "c"])
            try h.write("c", "r3.md", "remote three\n")  // something to pull again, one change a page
            try h.write("c", "r4.md", "remote four\n")
            try await h.sync("c")
            let report = try await Self.syncRewritingAfterScan(h, "n.md", "saved again after the scan\n")
            #expect(report.uploaded == 1, "\(report)")
            #expect(try await h.serverNotes()["n.md"] == "saved again after the scan\n")
            let next = try await h.syncInProcess("a")
            #expect(next.uploaded == 0 && next.filesRead == 0, "the index holds the file as sent: \(next)")
        }
    }
}

/// Counts calls from any thread.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    /// The number of this call: 1 the first time.
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
