import Foundation
import NotesCore
import NotesCommandLine
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes sync --watch` end to end: real server, real `notes` binaries watching real folders.
/// Every wait is for a condition, with a wide margin; no test asserts how fast anything is
/// (latency is measured by bench/watch-latency.sh).
@Suite("Sync: watching a folder (notes sync --watch)")
struct SyncWatchTests {
    /// Runs `body` with a watcher on each folder in `names`, and stops them all afterwards.
    private func withWatchers(_ h: LiveServer, _ names: [String], extra: [String] = [], hooks: [String: String] = [:],
                              _ body: ([WatchingSync]) async throws -> Void) async throws {
        var watchers: [WatchingSync] = []
        do {
            for name in names {
                watchers.append(try WatchingSync(folder: h.folder(name), environment: h.environment, extra: extra, hooks: hooks))
            }
            for watcher in watchers { try #require(try await watcher.waitUntilWatching(), "the watcher never started: \(watcher.stderr)") }
            try await body(watchers)
        } catch {
            for watcher in watchers { await watcher.stop() }
            throw error
        }
        for watcher in watchers { await watcher.stop() }
    }

    /// Waits until folders `names` and the server all hold exactly `expected`.
    private func converge(_ h: LiveServer, _ names: [String], to expected: [String: String], timeout: Double = 60) async throws -> Bool {
        try await waitUntil(timeout: timeout, every: .milliseconds(100)) {
            for name in names where try h.textTree(name) != expected { return false }
            return try await h.serverNotes() == expected
        }
    }

    @Test("two watchers on one account converge after edits, creates, renames and deletes in both folders")
    func twoWatchersConverge() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            var expected = ["keep.md": "keep\n", "edit.md": "one\n", "old.md": "rename me\n", "gone.md": "delete me\n",
                            "dir/inner.md": "in a folder\n"]
            for (path, text) in expected { try h.write("a", path, text) }
            try await h.sync("a")
            try await withWatchers(h, ["a", "b"]) { watchers in
                #expect(try await converge(h, ["a", "b"], to: expected), "b did not receive a's notes")

                // In a: an edit, a create, a rename, a delete, and a new folder filled at once.
                try h.write("a", "edit.md", "one\ntwo\n")
                try h.write("a", "new-in-a.md", "made in a\n")
                try h.move("a", "old.md", "renamed.md")
                try h.remove("a", "gone.md")
                for index in 0..<5 { try h.write("a", "burst/deeper/n\(index).md", "burst \(index)\n") }
                expected["edit.md"] = "one\ntwo\n"
                expected["new-in-a.md"] = "made in a\n"
                expected["renamed.md"] = expected.removeValue(forKey: "old.md")
                expected["gone.md"] = nil
                for index in 0..<5 { expected["burst/deeper/n\(index).md"] = "burst \(index)\n" }
                #expect(try await converge(h, ["a", "b"], to: expected), "a's changes did not reach b")

                // In b: the same kinds, and a folder renamed.
                try h.write("b", "edit.md", "one\ntwo\nthree\n")
                try h.write("b", "new-in-b.md", "made in b\n")
                try h.move("b", "dir", "moved-dir")
                try h.move("b", "renamed.md", "sub/renamed-again.md")
                try h.remove("b", "keep.md")
                expected["edit.md"] = "one\ntwo\nthree\n"
                expected["new-in-b.md"] = "made in b\n"
                expected["moved-dir/inner.md"] = expected.removeValue(forKey: "dir/inner.md")
                expected["sub/renamed-again.md"] = expected.removeValue(forKey: "renamed.md")
                expected["keep.md"] = nil
                #expect(try await converge(h, ["a", "b"], to: expected), "b's changes did not reach a")
                for watcher in watchers {
                    #expect(await watcher.stop() == 0, "a stopped watcher exits 0: \(watcher.stderr)")
                    #expect(watcher.stdout.contains("synced: "), "each sync that did something is reported")
                    #expect(!watcher.stderr.contains("failed"), "\(watcher.stderr)")
                }
            }
        }
    }

    @Test("SIGTERM while a watcher syncs: exit 0 after the step, nothing half-written, the next sync completes")
    func sigtermFinishesTheStepAndExitsZero() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                let watcher = watchers[0]
                var notes: [String: String] = [:]
                for index in 0..<40 { notes["n\(index).md"] = String(repeating: "line \(index)\n", count: 200) }
                for (path, text) in notes { try h.write("a", path, text) }
                let syncing = try await waitUntil(timeout: 60, every: .milliseconds(5)) { h.server.log.contains("POST /v1/batch") }
                #expect(syncing, "the watcher never started uploading")
                watcher.send(SIGTERM)
                #expect(await watcher.waitForExit() == 0, "SIGTERM ends a watch with exit 0: \(watcher.stderr)")
                #expect(watcher.stdout.contains("stopped watching"))
                #expect(try h.textTree("a") == notes, "the folder's files are whole")
                #expect(try h.indexIntegrity("a") == "ok")
                try await h.sync("a")
                #expect(try await h.serverNotes() == notes)
            }
        }
    }

    @Test("a session revoked while watching ends the watcher with exit 4 and says to sign in")
    func revokedSessionExitsFour() async throws {
        // A revoke wakes no long poll: the watcher learns it when its held request ends, so the
        // server holds them 3 s here (the issue: exit 4 within one long poll).
        try await LiveServer.with(["--max-wait", "3"], account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                let watcher = watchers[0]
                let revoked = try await h.server.admin(["sessions", "revoke", "--user", TestAccount.username])
                #expect(revoked.exitCode == 0, "\(revoked.stderr)")
                #expect(await watcher.waitForExit() == 4, "a revoked session ends the watch with exit 4: \(watcher.stderr)")
                #expect(watcher.stderr.contains("session expired or revoked: run `notes login`"), "\(watcher.stderr)")
            }
        }
    }

    @Test("a sign-in again on this machine while watching: the watcher goes on with the new session")
    func reloginIsTakenUp() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                let watcher = watchers[0]
                let before = try #require(try h.storedSession())
                try await h.login()  // ends the session the watcher holds (one session per device)
                #expect(try h.storedSession()?.refreshToken != before.refreshToken)
                try h.write("a", "after-login.md", "written after signing in again\n")
                try await h.createNotes([(path: "from-server.md", content: "made through the API\n")])
                let synced = try await waitUntil(timeout: 60, every: .milliseconds(100)) {
                    try await h.serverNotes()["after-login.md"] != nil && h.read("a", "from-server.md") != nil
                }
                #expect(synced, "the watcher stopped syncing after the new sign-in: \(watcher.stderr)")
                #expect(!watcher.hasExited, "\(watcher.stderr)")
                #expect(!watcher.stderr.contains("expired"), "\(watcher.stderr)")
            }
        }
    }

    @Test("short-lived access tokens: a watcher refreshes again and again, alongside one-shot commands, with no failure")
    func refreshesRepeatedlyOverSeveralTokenLifetimes() async throws {
        try await LiveServer.with(["--access-token-ttl", "2"], account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                let watcher = watchers[0]
                let refreshes = h.logCount("POST /v1/auth/refresh ")
                var round = 0
                // Several lifetimes of 2 s: an edit each round, each synced, while a one-shot
                // command on the same credentials store refreshes too. A round ends once the
                // tokens were replaced since it began (this test's own reads refresh them half
                // way through their life), so each edit finds the watcher's tokens older.
                while h.logCount("POST /v1/auth/refresh ") < refreshes + 4 {
                    round += 1
                    try #require(round <= 60, "the watcher stopped refreshing: \(watcher.stderr)")
                    let refreshed = h.logCount("POST /v1/auth/refresh ")
                    try h.write("a", "round\(round).md", "round \(round)\n")
                    let listed = try await h.notes(["ls"])
                    #expect(listed.exitCode == 0, "a one-shot command beside the watcher: \(listed.stderr)")
                    let arrived = try await waitUntil(timeout: 30, every: .milliseconds(100)) {
                        try await h.serverNotes()["round\(round).md"] == "round \(round)\n"
                    }
                    #expect(arrived, "round \(round) was not synced: \(watcher.stderr)")
                    let renewed = try await waitUntil(timeout: 30, every: .milliseconds(100)) {
                        _ = try await h.serverNotes()
                        return h.logCount("POST /v1/auth/refresh ") > refreshed
                    }
                    try #require(renewed, "no refresh within 30 s of 2 s tokens: \(watcher.stderr)")
                }
                #expect(!watcher.hasExited, "\(watcher.stderr)")
                #expect(watcher.stderr.isEmpty, "no failed sync, no sign-in error: \(watcher.stderr)")
            }
        }
    }

    @Test("the server killed and restarted on its port while watched: the watcher resumes and syncs what changed meanwhile")
    func resumesAfterServerRestart() async throws {
        let work = try TemporaryDirectory("notes-watch-restart")
        defer { work.remove() }
        let database = work.appending("server.sqlite").path
        var server = try await TestServer(database: database)
        let port = server.port
        defer { server.kill() }
        try await server.addUser(TestAccount.username, password: TestAccount.password)
        let h = LiveServer(server: server, home: try TemporaryDirectory("notes-home"), work: work)
        defer { h.home.remove() }
        try await h.login()
        try await h.initFolder("a")
        try await h.initFolder("b")
        try await withWatchers(h, ["a"]) { watchers in
            let watcher = watchers[0]
            server.kill()
            await server.waitForExit()
            try h.write("a", "while-down.md", "written while the server was down\n")
            let offline = try await waitUntil(timeout: 60) { watcher.stderr.contains("offline: ") }
            #expect(offline, "the watcher did not say it is offline: \(watcher.stdout)")
            server = try await TestServer.restarted(database: database, port: port)
            try h.write("b", "from-b.md", "written in b after the restart\n")
            try await h.sync("b")
            let resumed = try await waitUntil(timeout: 60, every: .milliseconds(100)) {
                try await h.serverNotes()["while-down.md"] != nil && h.read("a", "from-b.md") != nil
            }
            #expect(resumed, "the watcher did not resume: \(watcher.stdout) \(watcher.stderr)")
            #expect(try await h.serverNotes()["while-down.md"] == "written while the server was down\n")
            // The line comes once the resuming sync is done, which can be just after its effects show.
            let saidOnline = try await waitUntil(timeout: 10) { watcher.stdout.contains("back online: ") }
            #expect(saidOnline, "\(watcher.stdout)")
            #expect(!watcher.hasExited)
        }
    }

    @Test("a one-shot sync in a watched folder says a watcher is running, with its pid (exit 1)")
    func oneShotSyncNamesTheWatcher() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                let result = try await h.notes(["sync", h.folder("a")])
                #expect(result.exitCode == 1)
                #expect(result.stderr.contains("a watcher (`notes sync --watch`, pid \(watchers[0].pid)) is running in this folder"),
                        "\(result.stderr)")
                #expect(result.stderr.contains("`notes status` works beside it"), "\(result.stderr)")
            }
        }
    }

    @Test("notes status runs beside a watcher: it predicts, exit 0, and the watcher goes on syncing")
    func statusBesideTheWatcher() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "kept.md", "synced before the watcher\n")
            try await h.sync("a")
            try await withWatchers(h, ["a"]) { watchers in
                let status = try await h.notes(["status", h.folder("a")])
                #expect(status.exitCode == 0, "\(status.stderr)")
                #expect(status.stdout.contains("Nothing to sync."), "\(status.stdout)")
                #expect(!status.stderr.contains("watcher"), "\(status.stderr)")
                let json = try await h.notes(["status", "--json", h.folder("a")])
                #expect(json.exitCode == 0, "\(json.stderr)")
                #expect(json.stdout.contains("\"dry_run\""), "\(json.stdout)")
                try h.write("a", "after.md", "written after the status\n")
                let synced = try await waitUntil(timeout: 60, every: .milliseconds(100)) { try await h.serverNotes()["after.md"] != nil }
                #expect(synced, "the watcher stopped syncing after a status: \(watchers[0].stderr)")
                #expect(!watchers[0].hasExited)
                #expect(try h.indexIntegrity("a") == "ok")
            }
        }
    }

    @Test("lost file events (an injected queue overflow): the watcher rescans and picks up the change")
    func overflowLeadsToRescan() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            // The hook drops the first batch of events, as an overflow loses them: only the
            // rescan it must cause can find the new note.
            try await withWatchers(h, ["a"], hooks: ["NOTES_TEST_WATCH_OVERFLOW": "1"]) { watchers in
                try h.write("a", "unseen.md", "its event was lost\n")
                let synced = try await waitUntil(timeout: 60, every: .milliseconds(100)) { try await h.serverNotes()["unseen.md"] != nil }
                #expect(synced, "the overflow did not lead to a rescan: \(watchers[0].stderr)")
                #expect(watchers[0].stderr.contains("file events were lost"), "\(watchers[0].stderr)")
            }
        }
    }

    @Test("editors' temporary files never sync from a watched folder, and are not warned about")
    func editorFilesNeverSync() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"]) { watchers in
                for name in ["4913", ".note.md.swp", "note.md.swx", "note.md~", "#note.md#", "sub/.#note.md"] {
                    try h.write("a", name, "editor scratch\n")
                }
                try h.write("a", "note.md", "the real note\n")
                let synced = try await waitUntil(timeout: 60, every: .milliseconds(100)) { try await h.serverNotes() == ["note.md": "the real note\n"] }
                #expect(synced, "\(watchers[0].stderr)")
                #expect(!watchers[0].stderr.contains("left alone"), "editor files are not worth a warning: \(watchers[0].stderr)")
            }
        }
    }

    @Test("what wakes a watcher: a user's change does; its own sync's writes, editors' files and ignored notes do not")
    func onlyUserChangesWakeTheWatcher() throws {
        let folder = try TemporaryDirectory("notes-watch-events")
        defer { folder.remove() }
        let root = folder.path
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write("synced.md", "as the sync left it\n")
        try write("dir/inner.md", "in a folder\n")
        let rows = try ["synced.md", "dir/inner.md"].map { path in
            IndexRow(base: SyncBase(id: NoteID(), path: path, rev: 1, hash: ""), diskPath: path,
                     stat: try #require(SyncedFiles.fileStat(root + "/" + path)))
        }
        let synced = SyncedFiles(rows: rows)
        let ignore = IgnoreRules.folder(parsing: "drafts/\n")
        func wakes(_ files: Set<String>, vanished: Set<String> = []) -> Bool {
            synced.containsChange(LocalEvents(files: files, vanishedFolders: vanished), root: root, ignore: ignore)
        }
        #expect(!wakes(["synced.md", "dir/inner.md"]), "the sync's own writes, as recorded in the index")
        for name in ["4913", "note.md.swp", "note.md~", "#note.md#", "drafts/idea.md", "picture.png"] { try write(name, "x") }
        #expect(!wakes(["4913", "note.md.swp", "note.md~", "#note.md#", "drafts/idea.md", "vanished-temp.md"]))
        #expect(wakes(["picture.png"]), "an attachment syncs like a note")
        try write("new.md", "a new note\n")
        #expect(wakes(["new.md"]))
        try write("synced.md", "edited by the user\n")
        #expect(wakes(["synced.md"]))
        try FileManager.default.moveItem(atPath: root + "/dir", toPath: root + "/elsewhere")
        #expect(wakes([], vanished: ["dir"]), "a folder moved away takes synced notes with it")
        #expect(!wakes([], vanished: ["never-synced"]))
        #expect(wakes([".notesignore"]))
    }

    @Test("--json: one JSON line per sync that did something, with its report, and none for idle cycles")
    func jsonLines() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await withWatchers(h, ["a"], extra: ["--json"]) { watchers in
                try h.write("a", "one.md", "one\n")
                let synced = try await waitUntil(timeout: 60, every: .milliseconds(100)) { watchers[0].stdout.contains(#""event":"synced""#) }
                #expect(synced, "\(watchers[0].stderr)")
                #expect(await watchers[0].stop() == 0)
                struct Line: Decodable {
                    var time: String
                    var event: String
                    var report: SyncReport?
                }
                let lines = try watchers[0].stdout.split(separator: "\n").map { try WireJSON.decoder().decode(Line.self, from: Data($0.utf8)) }
                #expect(lines.map(\.event) == ["watching", "synced", "stopped"], "the first sync had nothing to do: no line")
                #expect(lines.first { $0.event == "synced" }?.report?.changes == [SyncReport.Change(action: .uploaded, path: "one.md")])
                #expect(lines.allSatisfy { $0.time.hasSuffix("Z") })
            }
        }
    }

    @Test("the mass-delete guard stops a watcher with its message (exit 1) and deletes nothing")
    func massDeleteGuardStopsTheWatcher() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "only.md", "the only note\n")
            try await h.sync("a")
            try await withWatchers(h, ["a"]) { watchers in
                try h.remove("a", "only.md")  // as an emptied or unmounted folder looks
                #expect(await watchers[0].waitForExit() == 1, "\(watchers[0].stderr)")
                #expect(watchers[0].stderr.contains("would delete 1 of 1 notes"), "\(watchers[0].stderr)")
                #expect(try await h.serverNotes() == ["only.md": "the only note\n"])
            }
        }
    }

    @Test("--quiet-period takes 1s, 500ms and plain seconds, and refuses anything else")
    func quietPeriodParsing() throws {
        #expect(try WatchSettings.duration("1s", option: "--quiet-period") == .seconds(1))
        #expect(try WatchSettings.duration("500ms", option: "--quiet-period") == .milliseconds(500))
        #expect(try WatchSettings.duration("0.2", option: "--quiet-period") == .milliseconds(200))
        for bad in ["", "-1", "fast", "1h", "nan", "7200"] {
            #expect(throws: UsageError.self) { try WatchSettings.duration(bad, option: "--quiet-period") }
        }
    }
}
