import Foundation
import NotesCore
import Synchronization
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 7: `kill -9` of the client or the server inside a sync leaves every file whole, and
/// the next sync completes with no duplicate and no loss.
@Suite("Sync faults")
struct SyncFaultTests {
    /// `count` notes of about 2 KB with known contents.
    static func corpus(_ count: Int) -> [String: String] {
        var notes: [String: String] = [:]
        for i in 0..<count {
            notes["f\(i % 7)/note-\(i).md"] = "# Note \(i)\n" + String(repeating: "text of note \(i). ", count: 100) + "\n"
        }
        return notes
    }

    /// How many notes a folder held before a run, read by the proxy's thread.
    final class FileFloor: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Every file outside `.notes/` is a whole note of `expected` (none half-written, no stray
    /// temporary file), whatever moment the kill came at.
    static func expectWholeFiles(_ h: LiveServer, _ name: String, _ expected: [String: String],
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (path, text) in try h.textTree(name) {
            #expect(expected[path] == text, "\(path) is not a whole note", sourceLocation: sourceLocation)
        }
    }

    @Test("kill -9 of the client during uploads and during a clone, then resumed syncs: whole files, no duplicates, no loss")
    func clientKilledMidSync() async throws {
        // Small changes pages, so a clone of 900 notes takes many: it is killed between two.
        try await LiveServer.with(["--max-page-bytes", "65536"], account: .loggedIn) { direct in
            // The uploads go through a proxy that holds back the server's answer to one chosen
            // batch: the client is killed while it waits for that answer, with the batch stored
            // on the server, however late this test notices (a fast client once finished all
            // ~40 batches before a busy machine let the test look).
            let hold = try RequestHold.batches(upstreamPort: direct.server.port)
            defer { hold.proxy.stop() }
            let h = try await direct.through(hold)
            let notes = Self.corpus(900)
            try await h.initFolder("a")
            for (path, text) in notes { try h.write("a", path, text) }
            // Each run is killed while the answer to its second batch is held back.
            for _ in 0..<3 {
                hold.hold(2)
                let kill = try await KilledSync.run(["sync", h.folder("a")], environment: h.environment) {
                    hold.isHolding
                }
                hold.proxy.release()
                #expect(kill.landedMidSync, "the upload ended before the kill: \(kill)")
                let uploaded = try await h.serverNotes().count
                #expect(uploaded > 0 && uploaded < notes.count, "not killed mid-upload: \(uploaded) of \(notes.count) notes on the server")
                try Self.expectWholeFiles(h, "a", notes)
                #expect(try h.indexIntegrity("a") == "ok")
            }
            try await h.sync("a")
            #expect(try await h.serverNotes() == notes)

            // The clone goes through a proxy that holds back the first changes page asked for
            // once the folder holds more notes than before the run: the client is killed
            // between two pages, having written some notes and not all.
            let floor = FileFloor()
            let folderB = h.folder("b")
            let pages = try RequestHold(upstreamPort: direct.server.port) { request in
                request.path == "/v1/changes" && LiveServer.noteFileCount(in: folderB) > floor.count.load(ordering: .acquiring)
            }
            defer { pages.proxy.stop() }
            let c = try await direct.through(pages)
            try await c.initFolder("b")
            for _ in 0..<2 {
                floor.count.store(c.noteFileCount("b"), ordering: .releasing)
                pages.hold(1)
                let kill = try await KilledSync.run(["sync", c.folder("b")], environment: c.environment) {
                    pages.isHolding
                }
                pages.proxy.release()
                #expect(kill.landedMidSync, "the clone ended before the kill: \(kill)")
                let written = c.noteFileCount("b")
                #expect(written > floor.count.load(ordering: .acquiring) && written < notes.count,
                        "not killed mid-clone: \(written) of \(notes.count) notes written")
                try Self.expectWholeFiles(c, "b", notes)
                #expect(try c.indexIntegrity("b") == "ok")
            }
            try await c.sync("b")
            #expect(try c.textTree("b") == notes)
            #expect(try await h.sync("a").isNoOp, "the clone changed nothing, so a has nothing to do")
            #expect(try await h.serverNotes() == notes)  // no duplicate was created by a retried batch
        }
    }

    @Test("kill -9 of the server during a sync, restarted on the same database: the next sync completes")
    func serverKilledMidSync() async throws {
        let work = try TemporaryDirectory("notes-fault")
        defer { work.remove() }
        let database = work.appending("server.sqlite").path
        var server = try await TestServer(database: database)
        let port = server.port
        try await server.addUser(TestAccount.username, password: TestAccount.password)
        // The client talks through a proxy that holds back the answer to the second batch: the
        // server is killed while the client waits for it, having stored that batch.
        let hold = try RequestHold.batches(upstreamPort: port)
        let proxy = hold.proxy
        defer { proxy.stop() }
        let environment = ["HOME": work.path, "XDG_CONFIG_HOME": work.appending("config").path]
        let url = proxy.baseURL.absoluteString
        let login = try await ProcessRunner.run(BuiltProducts.client, ["login", "--server", url, "--username", TestAccount.username, "--password-stdin"],
                                                environment: environment, stdin: TestAccount.password + "\n")
        #expect(login.exitCode == 0, "\(login.stderr)")
        let folder = work.appending("a").path
        _ = try await ProcessRunner.run(BuiltProducts.client, ["init", folder, "--server", url], environment: environment)
        let notes = Self.corpus(800)  // about 34 batches of 48 KB
        for (path, text) in notes {
            let file = URL(fileURLWithPath: folder + "/" + path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        hold.hold(2)
        async let sync = ProcessRunner.run(BuiltProducts.client, ["sync", folder], environment: environment)
        let held = try await waitUntil(timeout: 60, every: .milliseconds(5)) { proxy.isHolding }
        #expect(held, "the client never sent a second batch")
        server.kill()
        await server.waitForExit()
        proxy.release(dropping: true)  // the answer dies with the server
        let interrupted = try await sync
        #expect(interrupted.exitCode == 5, "the sync whose server died should say the server is unreachable: \(interrupted.stderr)")
        server = try await TestServer.restarted(database: database, port: port)
        defer { server.kill() }
        let listed = try await ProcessRunner.run(BuiltProducts.client, ["ls", "--server", url], environment: environment)
        let landed = listed.stdout.split(separator: "\n").count
        #expect(landed > 0 && landed < notes.count, "not killed mid-sync: \(landed) of \(notes.count) notes on the server")
        let resumed = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
        #expect(resumed.exitCode == 0, "\(resumed.stderr)")
        let check = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
        let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(check.stdout.utf8))
        #expect(report.uploaded == 0 && report.downloaded == 0 && report.conflicts.isEmpty)
        let listing = try await ProcessRunner.run(BuiltProducts.client, ["ls", "--server", url], environment: environment)
        #expect(listing.stdout.split(separator: "\n").count == notes.count)  // no duplicate, no loss
        server.kill()
        await server.waitForExit()
        let db = try Database(path: database)
        #expect(try db.integrityCheck() == "ok")
        let index = try SyncIndex(path: folder + "/.notes/index.sqlite")
        #expect(try index.integrityCheck() == "ok")
        try index.close()
    }
}
