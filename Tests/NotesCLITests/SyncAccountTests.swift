import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A folder belongs to one account: signing in as someone else on the same
/// server never lets their notes into the folder, nor deletes the folder's own.
@Suite("Sync: a folder is bound to its account")
struct SyncAccountTests {
    static let bob = "bob"
    static let bobPassword = "bob's own long password"

    /// Adds the user bob on the harness's server and signs the real `notes` in as him.
    static func signInBob(_ h: LiveServer) async throws {
        try await h.server.addUser(bob, password: bobPassword)
        try await loginBob(h)
    }

    static func loginBob(_ h: LiveServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let login = try await h.notes(["login", "--server", h.serverURL, "--username", bob, "--password-stdin"],
                                      stdin: bobPassword + "\n", sourceLocation: sourceLocation)
        #expect(login.exitCode == 0, "login as bob failed: \(login.stderr)", sourceLocation: sourceLocation)
    }

    /// A folder `c` bound and synced as ada with three notes, then bob signed in with one note of his own.
    static func aliceFolderThenBob(_ h: LiveServer) async throws -> [String: Data] {
        try await h.initFolder("c")
        for index in 1...3 { try h.write("c", "ada-\(index).md", "ada's note \(index)\n") }
        try await h.sync("c")
        try await signInBob(h)
        try await h.createNotes([("bob.md", "bob's note\n")])
        return try h.tree("c")
    }

    @Test("After `notes login` as bob, syncing ada's folder still syncs as ada: bob's note never arrives, nothing is deleted")
    func loginAsAnotherUserLeavesTheFolderAlone() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let before = try await Self.aliceFolderThenBob(h)
            let result = try await h.notes(["sync", h.folder("c"), "--json"])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(try h.tree("c") == before)
            #expect(h.read("c", "bob.md") == nil)
            #expect(!result.stderr.contains("full resync"))
        }
    }

    /// Everything a refused command must leave alone: the files, the binding and the index.
    static func snapshot(_ h: LiveServer, _ name: String) throws -> [String: Data] {
        var all = try h.tree(name)
        all[".notes/config.json"] = FileManager.default.contents(atPath: h.folder(name) + "/.notes/config.json")
        let index = try SyncIndex(path: h.folder(name) + "/.notes/index.sqlite")
        defer { try? index.close() }
        let rows = try index.rows().map { "\($0.base.id.value) \($0.base.path) \($0.base.rev) \($0.base.hash)" }.sorted()
        all["index rows"] = Data((rows + ["cursor \(try index.cursor() ?? "-")"]).joined(separator: "\n").utf8)
        return all
    }

    @Test("with the folder's account signed out, sync and status refuse with exit 4 naming both accounts and change nothing")
    func folderAccountSignedOutIsRefused() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            _ = try await Self.aliceFolderThenBob(h)
            let logout = try await h.notes(["logout", "--username", "ada"])
            #expect(logout.exitCode == 0, "\(logout.stderr)")
            let before = try Self.snapshot(h, "c")
            for command in [["sync", h.folder("c")], ["status", h.folder("c")], ["sync", h.folder("c"), "--json"]] {
                let result = try await h.notes(command)
                #expect(result.exitCode == 4, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("belongs to ada") && result.stderr.contains("only bob is signed in"), "\(result.stderr)")
                #expect(result.stderr.contains("notes login --server \(h.serverURL) --username ada"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(try Self.snapshot(h, "c") == before)
            #expect(Set(try await h.serverNotes().keys) == ["bob.md"])  // bob's account got nothing either
        }
    }

    @Test("NOTES_TOKEN of another account: sync refuses with exit 4 naming both accounts and changes nothing")
    func foreignPersonalTokenIsRefused() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            _ = try await Self.aliceFolderThenBob(h)
            try h.write("c", "ada-new.md", "not yet uploaded\n")
            let created = try await h.notes(["token", "create", "ci", "--scope", "write", "--username", "bob"])
            #expect(created.exitCode == 0, "\(created.stderr)")
            let bobToken = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let before = try Self.snapshot(h, "c")
            let refused = try await h.notes(["sync", h.folder("c")], environment: ["NOTES_TOKEN": bobToken])
            #expect(refused.exitCode == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("NOTES_TOKEN belongs to bob") && refused.stderr.contains("belongs to ada"), "\(refused.stderr)")
            #expect(try Self.snapshot(h, "c") == before)
            #expect(Set(try await h.serverNotes().keys) == ["bob.md"])
            // The history commands' way in asks the server at once, with the same answer.
            let folder = try SyncFolder.find(from: h.folder("c"))
            let factory = try ClientFactory(environment: h.environment.merging(["NOTES_TOKEN": bobToken]) { $1 })
            let error = await #expect(throws: AccountError.self) { _ = try await factory.client(forFolder: folder) }
            #expect(error.map { CLI.outcome(of: $0).exitCode } == .signInRequired)
        }
    }

    @Test("a no-op sync checks the account without an extra request: one changes request, no /v1/me, with a session or NOTES_TOKEN")
    func accountCheckCostsNoRequest() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "one.md", "one\n")
            try await h.sync("a")
            let created = try await h.notes(["token", "create", "ci", "--scope", "write"])
            let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            for environment in [[:], ["NOTES_TOKEN": token]] {
                let changes = h.logCount("GET /v1/changes"), me = h.logCount("GET /v1/me")
                let result = try await h.notes(["sync", h.folder("a"), "--json"], environment: environment)
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(try await waitUntil { h.logCount("GET /v1/changes") == changes + 1 })
                #expect(h.logCount("GET /v1/me") == me)
                #expect(h.logCount("GET /v1/changes") == changes + 1)
            }
        }
    }

    @Test("every changes page says whose notes it holds: user_id is the signed-in user's")
    func changesPageCarriesUserID() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let api = try h.apiClient()
            let me = try await api.me()
            let page = try await api.json(ChangesPage.self, APIRequest("GET", "/v1/changes"))
            #expect(page.userId == me.id)
        }
    }

    @Test("init and clone record the account in .notes/config.json; init without a sign-in exits 4 and binds nothing")
    func bindingRecordsTheAccount() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let me = try await h.apiClient().me()
            try await h.initFolder("a")
            let clone = try await h.notes(["clone", h.serverURL, h.folder("b")])
            #expect(clone.exitCode == 0, "\(clone.stderr)")
            for name in ["a", "b"] {
                let config = try SyncFolder.find(from: h.folder(name)).config
                #expect(config.account == AccountName(userId: me.id, username: "ada"))
            }
            #expect(try await h.notes(["logout"]).exitCode == 0)
            let unsigned = try await h.notes(["init", h.folder("c"), "--server", h.serverURL])
            #expect(unsigned.exitCode == 4, "\(unsigned.stderr)")
            #expect(unsigned.stderr.contains("notes login --server \(h.serverURL)"))
            #expect(!FileManager.default.fileExists(atPath: h.folder("c") + "/.notes"))
        }
    }

    /// Rewrites folder `name`'s config as a binding from before accounts were recorded.
    static func makeLegacy(_ h: LiveServer, _ name: String) throws {
        let path = h.folder(name) + "/.notes/config.json"
        var object = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        object["user_id"] = nil
        object["username"] = nil
        object["version"] = 1
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    @Test("a folder bound before accounts is refused when its notes are not the signed-in account's, then adopted by the account the server confirms")
    func legacyFolderIsAdoptedOnlyByItsOwner() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let before = try await Self.aliceFolderThenBob(h)
            try Self.makeLegacy(h, "c")
            #expect(try await h.notes(["logout", "--username", "ada"]).exitCode == 0)
            let snapshot = try Self.snapshot(h, "c")
            let refused = try await h.notes(["sync", h.folder("c")])
            #expect(refused.exitCode == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("bound before notes recorded accounts") && refused.stderr.contains("(bob)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("notes init --rebind \(h.folder("c"))"), "\(refused.stderr)")
            #expect(try Self.snapshot(h, "c") == snapshot)

            // ada signs in again, then bob, so bob is the default: the folder is still ada's.
            try await h.login()
            try await Self.loginBob(h)
            let adopted = try await h.notes(["sync", h.folder("c")])
            #expect(adopted.exitCode == 0, "\(adopted.stderr)")
            #expect(adopted.stderr.contains("now bound to ada"), "\(adopted.stderr)")
            #expect(try SyncFolder.find(from: h.folder("c")).config.account?.username == "ada")
            #expect(try h.tree("c") == before)
        }
    }

    @Test("a folder bound before accounts that never synced a note is adopted by the default account")
    func emptyLegacyFolderIsAdoptedByDefaultAccount() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try Self.makeLegacy(h, "a")
            try await Self.signInBob(h)
            try h.write("a", "mine.md", "bob's first\n")
            let result = try await h.notes(["sync", h.folder("a")])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(try SyncFolder.find(from: h.folder("a")).config.account?.username == "bob")
            #expect(try await h.serverNotes() == ["mine.md": "bob's first\n"])  // bob's account (the default's)
        }
    }

    @Test("`notes init --rebind` moves a folder to another account: no file touched, the next sync uploads them beside its notes and deletes nothing")
    func rebindMovesTheFolder() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let before = try await Self.aliceFolderThenBob(h)
            let rebind = try await h.notes(["init", "--rebind", h.folder("c"), "--username", "bob"])
            #expect(rebind.exitCode == 0, "\(rebind.stderr)")
            #expect(try h.tree("c") == before)
            #expect(try SyncFolder.find(from: h.folder("c")).config.account?.username == "bob")
            try await h.sync("c")
            var expected = try h.textTree("c")
            #expect(Set(expected.keys) == Set(before.keys).union(["bob.md"]))
            expected["bob.md"] = nil
            #expect(expected == before.mapValues { String(decoding: $0, as: UTF8.self) })
            #expect(try await h.serverNotes().count == 4)  // bob's: his own and ada's three, uploaded
            // ada's notes are still hers.
            #expect(try await h.notes(["ls", "--username", "ada"]).stdout.split(separator: "\n").count == 3)
        }
    }
}
