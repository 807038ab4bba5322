import Foundation
import Synchronization
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 8 against a server that lies, and 10 against a user who types during a sync.
@Suite("Sync safety")
struct SyncSafetyTests {
    @Test("a hostile server cannot make `notes sync` write outside the folder or into .notes/")
    func hostilePathsAreRefused() async throws {
        let work = try TemporaryDirectory("notes-hostile")
        defer { work.remove() }
        let hostile = ["../escape.md", "/tmp/absolute.md", ".notes/index.sqlite.md", "a/../../up.md", "a//b.md", "./dot.md",
                       "nul\u{0}.md", "back\\slash.md", "ctl\u{1B}.md", "", "a/.hidden/x.md", "not-markdown.txt",
                       "Cafe\u{301}.md", "fine.md"]
        let notes = hostile.enumerated().map { offset, path in
            NoteResource(id: NoteID(), path: path, content: "payload \(offset)\n", hash: SHA256.hex(of: "payload \(offset)\n"),
                         rev: Int64(offset + 1), size: 10, createdAt: "", updatedAt: "", deleted: false)
        }
        let feed = try WireJSON.encoder().encode(ChangesPage(changes: notes, cursor: "99", hasMore: false))
        let emptyFeed = try WireJSON.encoder().encode(ChangesPage(changes: [], cursor: "99", hasMore: false))
        // A real socket and the client's real transport; only the answers are a hostile server's.
        let server = try ScriptedHTTPServer { request in
            switch request.path {
            case "/v1/changes": .respond(status: 200, headers: ["Content-Type": "application/json"],
                                         body: request.query.contains("since=99") ? emptyFeed : feed)
            case "/v1/batch": .json(200, #"{"results":[]}"#)
            case "/v1/me": .json(200, #"{"id":1,"username":"ada","created_at":"2026-01-01T00:00:00.000Z"}"#)  // NOTES_TOKEN's owner, for the binding
            default: .error(404, "not_found", "No such thing.")
            }
        }
        defer { server.stop() }
        let environment = ["HOME": work.path, "XDG_CONFIG_HOME": work.appending("config").path, "NOTES_TOKEN": "npt_scripted"]
        let folder = work.appending("folder").path
        _ = try await ProcessRunner.run(BuiltProducts.client, ["init", folder, "--server", server.baseURL], environment: environment)
        let result = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
        #expect(report.downloaded == 2)
        #expect(report.warnings.filter { $0.contains("unsafe path") }.count == hostile.count - 2)
        // Only the two acceptable notes, and the decomposed name written NFC, as on the wire.
        let written = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != ".notes" }.map { Array($0.utf8) }
        #expect(Set(written) == [Array("fine.md".utf8), Array("Caf\u{E9}.md".utf8)])
        for escaped in ["escape.md", "up.md"] {  // where ../ would have led
            #expect(!FileManager.default.fileExists(atPath: work.appending(escaped).path))
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute.md"))
        let index = try SyncIndex(path: folder + "/.notes/index.sqlite")
        #expect(try index.integrityCheck() == "ok")
        try index.close()
    }

    /// Forwards to the real server, running `hook` once after the scan (during the first
    /// changes request): the moment a user saves a file in the middle of a sync.
    struct HookedRemote: SyncRemote {
        let base: any SyncRemote
        let hook: @Sendable () -> Void
        let fired = Flag()

        func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
            let page = try await base.changes(since: since, limit: limit, includeContent: includeContent)
            if fired.setOnce() { hook() }
            return page
        }

        func batch(_ operations: [BatchOperation]) async throws -> BatchResponse { try await base.batch(operations) }

        func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }


        func noteLimit() async -> Int { await base.noteLimit() }
    }

    @Test("a file saved during a sync is not overwritten, and the next sync keeps both versions")
    func fileChangedDuringSyncIsKept() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "n.md", "v1\n")
            try h.write("a", "other.md", "o\n")
            try await h.sync("a")
            try await h.initFolder("b")
            try await h.sync("b")
            try h.write("b", "n.md", "v2 from b\n")
            try await h.sync("b")

            let path = h.folder("a") + "/n.md"
            _ = try await h.syncInProcess("a", wrap: { remote in
                HookedRemote(base: remote, hook: { try? Data("typed during sync\n".utf8).write(to: URL(fileURLWithPath: path)) })
            })
            #expect(h.read("a", "n.md") == "typed during sync\n")
            let report = try await h.syncInProcess("a")
            let texts = Set(try h.textTree("a").values)
            #expect(texts.contains("typed during sync\n") && texts.contains("v2 from b\n"))
            #expect(report.conflicts.count == 1)
        }
    }
}

/// A thread-safe once-flag.
final class Flag: Sendable {
    private let state = Mutex(false)

    /// True the first time only.
    func setOnce() -> Bool {
        state.withLock { value in
            defer { value = true }
            return !value
        }
    }
}
