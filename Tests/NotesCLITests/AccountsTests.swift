import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Several accounts per server in the credentials file (like `gh auth switch`), and one
/// session per device login.
@Suite("Accounts: several per server, one session per device")
struct AccountsTests {
    static let bobPassword = "bob's own long password"

    static func login(_ harness: LiveServer, _ username: String, _ password: String,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        let result = try await harness.notes(["login", "--server", harness.serverURL, "--username", username, "--password-stdin"],
                                             stdin: password + "\n", sourceLocation: sourceLocation)
        #expect(result.exitCode == 0, "login as \(username) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test("login as a second user adds an account and makes it the default; --username picks either; logout --username ends only that one")
    func secondAccountBesideTheFirst() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.server.addUser("bob", password: Self.bobPassword)
            try await harness.login()
            try await harness.createNotes([("ada.md", "ada\n")])
            let second = try await Self.login(harness, "bob", Self.bobPassword)
            #expect(second.stderr.contains("also signed in: ada"), "\(second.stderr)")
            try await harness.createNotes([("bob.md", "bob\n")])

            #expect(try await harness.notes(["whoami"]).stdout == "bob on \(harness.serverURL)\n")
            #expect(try await harness.notes(["ls"]).stdout == "bob.md\n")
            #expect(try await harness.notes(["ls", "--username", "ada"]).stdout == "ada.md\n")
            #expect(try await harness.notes(["whoami", "--username", "ada"]).stdout == "ada on \(harness.serverURL)\n")
            let unknown = try await harness.notes(["ls", "--username", "carol"])
            #expect(unknown.exitCode == 4)
            #expect(unknown.stderr.contains("not signed in to \(harness.serverURL) as carol"))

            let file = try harness.store.load()
            let ids = Set(file.sessions(server: harness.serverURL).compactMap(\.userId).map(String.init))
            #expect(ids.count == 2)
            #expect(Set(file.servers[harness.serverURL]?.accounts.keys.map { $0 } ?? []) == ids)  // keyed by user id

            let logout = try await harness.notes(["logout", "--username", "bob"])
            #expect(logout.exitCode == 0, "\(logout.stderr)")
            // ada is left, and is the default again without asking.
            #expect(try await harness.notes(["whoami"]).stdout == "ada on \(harness.serverURL)\n")
            #expect(try harness.store.load().sessions(server: harness.serverURL).map(\.username) == ["ada"])
        }
    }

    @Test("NOTES_TOKEN decides the account, so --username with it is a usage error")
    func usernameWithPersonalTokenIsUsageError() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let result = try await harness.notes(["ls", "--username", "ada"], environment: ["NOTES_TOKEN": "npt_anything"])
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("NOTES_TOKEN is set"))
        }
    }

    @Test("whoami shows the account in use and, inside a bound folder, the folder's account")
    func whoamiInsideAFolder() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.server.addUser("bob", password: Self.bobPassword)
            try await harness.login()
            let folder = harness.home.appending("notes").path
            #expect(try await harness.notes(["init", folder, "--server", harness.serverURL]).exitCode == 0)
            _ = try await Self.login(harness, "bob", Self.bobPassword)
            let text = try await ProcessRunner.run(BuiltProducts.client, ["whoami"], environment: harness.environment, currentDirectory: URL(fileURLWithPath: folder))
            #expect(text.stdout == "bob on \(harness.serverURL)\nthis folder (\(folder)) belongs to ada on \(harness.serverURL), which sync and status use here\n")
            let json = try await ProcessRunner.run(BuiltProducts.client, ["whoami", "--json"], environment: harness.environment, currentDirectory: URL(fileURLWithPath: folder))
            let output = try WireJSON.decoder().decode(WhoamiCommand.Output.self, from: Data(json.stdout.utf8))
            #expect(output.user.username == "bob")
            #expect(output.folder?.username == "ada")
            #expect(output.folder?.root == folder)
        }
    }

    @Test("a version 1 credentials file (one session per server) keeps working and is rewritten as version 2 keyed by user id")
    func versionOneFileIsMigrated() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let session = try #require(try harness.storedSession())
            let userId = try #require(session.userId)
            let legacy = """
                {"version": 1, "servers": {"\(harness.serverURL)": {"server": "\(harness.serverURL)", "username": "ada",
                "access_token": "\(session.accessToken)", "access_expires_at": \(session.accessExpiresAt),
                "access_lifetime": \(session.accessLifetime), "refresh_token": "\(session.refreshToken)"}}}
                """
            try Data(legacy.utf8).write(to: URL(fileURLWithPath: harness.credentialsPath))
            #expect(try await harness.notes(["whoami"]).stdout == "ada on \(harness.serverURL)\n")
            // Binding a folder needs the account's id: asked once, then kept under it.
            let folder = harness.home.appending("notes").path
            let bind = try await harness.notes(["init", folder, "--server", harness.serverURL])
            #expect(bind.exitCode == 0, "\(bind.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: harness.credentialsPath))) as? [String: Any])
            #expect(json["version"] as? Int == 2)
            let server = try #require((json["servers"] as? [String: Any])?[harness.serverURL] as? [String: Any])
            #expect((server["accounts"] as? [String: Any])?.keys.sorted() == [String(userId)])
            #expect(server["unidentified"] == nil)
            #expect(try harness.storedSession()?.refreshToken == session.refreshToken)
        }
    }

    @Test("logging in again as the same account sends the replaced session's refresh token, for the server to revoke")
    func reloginNamesTheReplacedSession() async throws {
        try await withTemporaryDirectory { directory in
            let answer = """
                {"access_token":"nat_new","token_type":"Bearer","expires_in":3600,"refresh_token":"nrt_new",
                "user":{"id":7,"username":"ada","created_at":"2026-01-01T00:00:00.000Z"}}
                """
            let server = try ScriptedHTTPServer { _ in .json(200, answer) }
            defer { server.stop() }
            let url = try ServerURL(server.baseURL)
            let store = CredentialStore(directory: directory.appending("config"))
            let other = StoredSession(server: url.string, userId: 8, username: "bob", accessToken: "nat_b", accessExpiresAt: 0,
                                      accessLifetime: 60, refreshToken: "nrt_bob")
            let old = StoredSession(server: url.string, userId: 7, username: "ada", accessToken: "nat_a", accessExpiresAt: 0,
                                    accessLifetime: 60, refreshToken: "nrt_old")
            try await store.update { @Sendable file in
                file.store(other, makeDefault: true)
                file.store(old, makeDefault: false)
            }
            _ = try await SignIn.login(server: url, username: "ada", password: "pw", store: store)
            let sent = try WireJSON.decoder().decode(LoginRequest.self, from: try #require(server.requests.last).body)
            #expect(sent.replacesRefreshToken == "nrt_old")
            let file = try store.load()
            #expect(file.session(server: url.string, userId: 7)?.refreshToken == "nrt_new")
            #expect(file.session(server: url.string, userId: 8) == other)
            #expect(file.defaultSession(server: url.string)?.username == "ada")
        }
    }

    @Test("logging in again from the same credentials store leaves one session of that device on the server")
    func reloginRevokesTheReplacedSession() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let first = try #require(try harness.storedSession())
            try await harness.login()
            try await harness.login()
            let list = try await harness.server.admin(["sessions", "list", "--user", TestAccount.username])
            #expect(list.stdout.split(separator: "\n").count == 1, "\(list.stdout)")
            #expect(try await harness.notes(["whoami"]).exitCode == 0)
            // The replaced session is over on the server, not merely forgotten here.
            let api = APIClient(server: try ServerURL(harness.serverURL), credential: .anonymous)
            await #expect(throws: ClientError.self) { _ = try await api.requestRefresh(using: first.refreshToken) }
        }
    }
}
