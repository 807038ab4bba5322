import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 12: a resync (410 from the server, or a lost index) never deletes a local file;
/// what the server does not have is kept and uploaded, and the user may delete a duplicate.
@Suite("Sync resync")
struct SyncResyncTests {
    @Test("after a 410 the folder resyncs in full: a file whose note was purged on the server is kept and uploaded, an edit too")
    func resyncAfterPurgedTombstonesKeepsLocalFiles() async throws {
        try await LiveServer.with(["--tombstone-ttl", "1"], account: .loggedIn) { h in
            try await h.initFolder("a")
            for name in ["keep", "gone", "edited", "x", "y"] { try h.write("a", "\(name).md", "\(name)\n") }
            try await h.sync("a")
            try await h.initFolder("b")
            try await h.sync("b")
            try h.remove("b", "gone.md")
            try h.remove("b", "edited.md")
            try await h.sync("b")
            try h.write("a", "edited.md", "edited while b deleted it\n")
            // The server purges tombstones past their 1 s retention: once b's two deletions are
            // gone from its feed, a's cursor is older than what it keeps.
            let purged = try await waitUntil(timeout: 30, every: .milliseconds(100)) { try await Self.tombstones(h) == 0 }
            try #require(purged, "the server kept its tombstones past their retention")

            let report = try await h.sync("a")
            #expect(report.warnings.contains { $0.contains("full resync") && $0.contains("none is deleted") }, "\(report.warnings)")
            #expect(report.deleted == 0 && report.uploaded == 2, "\(report)")
            #expect(h.read("a", "gone.md") == "gone\n")
            let expected = ["keep.md": "keep\n", "gone.md": "gone\n", "edited.md": "edited while b deleted it\n", "x.md": "x\n", "y.md": "y\n"]
            #expect(try await h.serverNotes() == expected)
            try await h.sync("b")
            #expect(try h.textTree("a") == expected)
            #expect(try h.textTree("b") == expected)
        }
    }

    /// How many deleted notes the server's changes feed still lists (a full walk: tombstones included).
    private static func tombstones(_ h: LiveServer) async throws -> Int {
        let page = try await h.apiClient().json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: [("limit", "1000")]))
        return page.changes.filter(\.deleted).count
    }

    @Test("a folder whose sync position the server does not recognise (a server restored from an older backup) keeps and uploads its files")
    func resyncWithAnUnknownCursorDeletesNothing() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let notes = Dictionary(uniqueKeysWithValues: (0..<13).map { ("n\($0).md", "note \($0)\n") })
            for (path, text) in notes { try h.write("a", path, text) }
            try await h.sync("a")
            // The folder now syncs with a server that never had these notes and is at an earlier
            // revision than the folder's cursor, as after restoring an older backup.
            let other = try await TestServer()
            do {
                try await checkResync(h, other: other, notes: notes)
            } catch {
                _ = await other.stop()
                throw error
            }
            _ = await other.stop()
        }
    }

    private func checkResync(_ h: LiveServer, other: TestServer, notes: [String: String]) async throws {
        try await other.addUser(TestAccount.username, password: TestAccount.password)
        let login = try await h.notes(["login", "--server", other.baseURL.absoluteString, "--username", TestAccount.username,
                                       "--password-stdin"], stdin: TestAccount.password + "\n")
        #expect(login.exitCode == 0, "\(login.stderr)")
        let otherClient = LiveServer(server: other, home: h.home, work: h.work)
        try await otherClient.createNotes([("theirs.md", "only on the other server\n")])
        let configPath = h.folder("a") + "/.notes/config.json"
        var config = try WireJSON.decoder().decode(SyncFolder.Config.self, from: Data(contentsOf: URL(fileURLWithPath: configPath)))
        config.server = other.baseURL.absoluteString
        try WireJSON.encoder().encode(config).write(to: URL(fileURLWithPath: configPath))

        let report = try await h.sync("a")
        #expect(report.deleted == 0 && report.uploaded == 13 && report.downloaded == 1, "\(report)")
        #expect(report.warnings.contains { $0.contains("full resync") })
        var expected = notes
        expected["theirs.md"] = "only on the other server\n"
        #expect(try h.textTree("a") == expected)
        let onOther = try await otherClient.apiClient().json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: [("include", "content")]))
        #expect(Dictionary(uniqueKeysWithValues: onOther.changes.map { ($0.path, $0.content ?? "") }) == expected)
    }
}
