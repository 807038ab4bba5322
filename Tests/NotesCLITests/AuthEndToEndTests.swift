import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// The real `notes` binary against the real `notes-server`. Expiry is never waited for: the
/// client's side of it is the stored session's expiry time, set in the past as an hour later
/// would find it; the server's side is a short lifetime whose end the test observes.
@Suite("Sign-in end to end")
struct AuthEndToEndTests {
    @Test("after login, a new process hours later works silently: it refreshes and stores the rotated tokens, in 0700/0600 files")
    func silentSignInAfterExpiry() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            var info = stat()
            #expect(stat(harness.credentialsPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(stat((harness.credentialsPath as NSString).deletingLastPathComponent, &info) == 0 && info.st_mode & 0o777 == 0o700)
            let first = try #require(try harness.storedSession())
            #expect(first.accessToken.hasPrefix("nat_") && first.refreshToken.hasPrefix("nrt_"))

            try await harness.expireStoredAccessToken()
            let refreshesBefore = harness.logCount("POST /v1/auth/refresh ")
            let whoami = try await harness.notes(["whoami"])
            #expect(whoami.exitCode == 0, "\(whoami.stderr)")
            #expect(whoami.stdout == "ada on \(harness.serverURL)\n")
            #expect(try await waitUntil { harness.logCount("POST /v1/auth/refresh ") == refreshesBefore + 1 })

            let rotated = try #require(try harness.storedSession())
            #expect(rotated.refreshToken != first.refreshToken)
            #expect(rotated.accessToken != first.accessToken)
            #expect(rotated.accessExpiresAt > first.accessExpiresAt)
            let json = try await harness.notes(["whoami", "--json"])
            let decoded = try WireJSON.decoder().decode(WhoamiCommand.Output.self, from: Data(json.stdout.utf8))
            #expect(decoded.user.username == "ada")
        }
    }

    @Test("`notes cat` of 20 notes with an expired token sends 20 requests in parallel and makes exactly one refresh")
    func concurrentRequestsShareOneRefresh() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let notes = (0..<20).map { (path: "folder/note-\($0).md", content: "# Note \($0)\n\nbody \($0)\n") }
            try await harness.createNotes(notes)
            try await harness.expireStoredAccessToken()
            let refreshesBefore = harness.logCount("POST /v1/auth/refresh ")
            let fetchesBefore = harness.logCount("GET /v1/notes/")

            let result = try await harness.notes(["cat"] + notes.map(\.path))
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stdout == notes.map(\.content).joined())
            #expect(try await waitUntil { harness.logCount("GET /v1/notes/") == fetchesBefore + 20 })
            #expect(harness.logCount("POST /v1/auth/refresh ") == refreshesBefore + 1)
        }
    }

    /// The access-token lifetime where only the server can tell a token expired: short, since
    /// the test waits for the server to refuse the first token, and long enough that the token
    /// the refresh hands out is still good when the replays reach a loaded server.
    static let serverExpiryTTL = 3

    @Test("20 requests refused together with 401 (token expired on the server only) replay after exactly one refresh")
    func concurrentRejectionsAgainstRealServer() async throws {
        try await LiveServer.with(["--access-token-ttl", String(Self.serverExpiryTTL)], account: .added) { harness in
            try await harness.login()
            let session = try #require(try harness.storedSession())
            // The client's clock stays at the moment the token arrived, so the client never takes
            // a token to be near its end: only the server's 401 can tell.
            let received = Date(timeIntervalSince1970: session.accessExpiresAt - session.accessLifetime)
            let client = try harness.apiClient(holding: session, now: { received })
            let refused = try await waitUntil(timeout: 30, every: .milliseconds(100)) {
                try await Self.refusesAsExpired(session.accessToken, harness)
            }
            try #require(refused, "the server still takes an access token past its \(Self.serverExpiryTTL) s")
            let refreshesBefore = harness.logCount("POST /v1/auth/refresh ")

            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await client.me().username } }
                for try await name in group { #expect(name == "ada") }
            }
            #expect(try await waitUntil { harness.logCount("GET /v1/me 200") >= 20 })
            #expect(harness.logCount("GET /v1/me 401") >= 1)
            #expect(harness.logCount("POST /v1/auth/refresh ") == refreshesBefore + 1)
            #expect(try harness.storedSession()?.refreshToken != session.refreshToken)
        }
    }

    /// Whether the server refuses `token` as expired (asked on a route the tests here do not count).
    private static func refusesAsExpired(_ token: String, _ harness: LiveServer) async throws -> Bool {
        let answer = try await TestAPIClient(baseURL: harness.server.baseURL, token: token).send("GET", "/v1/tokens")
        return answer.status == 401 && answer.header("WWW-Authenticate")?.contains("expired") == true
    }

    @Test("a session revoked elsewhere fails with exit 4 and says to log in, and the dead tokens are forgotten")
    func revokedSession() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            // A second machine holding a copy of the session signs out, which revokes it server-side.
            let other = try TemporaryDirectory("notes-home-2")
            defer { other.remove() }
            let otherConfig = other.appending("config/notes")
            try FileManager.default.createDirectory(at: otherConfig, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: harness.credentialsPath, toPath: otherConfig.appendingPathComponent("credentials.json").path)
            let logout = try await harness.notes(["logout"], environment: ["HOME": other.path, "XDG_CONFIG_HOME": other.appending("config").path])
            #expect(logout.exitCode == 0, "\(logout.stderr)")
            #expect(logout.stderr.contains("Signed out"))

            let result = try await harness.notes(["whoami"])
            #expect(result.exitCode == 4)
            #expect(result.stderr == "notes whoami: session expired or revoked: run `notes login`\n")
            #expect(try harness.storedSession() == nil)
        }
    }

    @Test("login with https:// to a plain-HTTP server says so in one sentence, not in OpenSSL's words, and stores nothing")
    func httpsToPlainHTTPServer() async throws {
        try await LiveServer.with(account: .added) { harness in
            let https = harness.serverURL.replacingOccurrences(of: "http://", with: "https://")
            let result = try await harness.notes(["login", "--server", https, "--username", TestAccount.username, "--password-stdin"],
                                                 stdin: TestAccount.password + "\n")
            #expect(result.exitCode == 1, "\(result.stderr)")
            #expect(result.stderr == "notes login: request to \(https) failed: the secure (TLS) connection could not be set up; "
                    + "is this server plain http?\n", "\(result.stderr)")
            #expect(!result.stderr.contains("SSL"), "\(result.stderr)")
            #expect(try harness.storedSession() == nil)
        }
    }

    @Test("with the server down, commands exit 5 and a refresh that could not happen keeps the stored tokens")
    func serverDown() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.expireStoredAccessToken()
            let before = try Data(contentsOf: URL(fileURLWithPath: harness.credentialsPath))
            await harness.server.stop()
            let result = try await harness.notes(["whoami"])
            #expect(result.exitCode == 5)
            #expect(result.stderr.hasPrefix("notes whoami: cannot reach \(harness.serverURL)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: harness.credentialsPath)) == before)
        }
    }
}

extension AuthEndToEndTests {
    @Test("after the session is revoked by an administrator, `notes login` signs in again to the same server without asking which")
    func loginAfterRevokeKnowsTheServer() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let revoked = try await harness.server.admin(["sessions", "revoke", "--user", TestAccount.username])
            #expect(revoked.exitCode == 0, "\(revoked.stderr)")
            #expect(try await harness.notes(["whoami"]).exitCode == 4)
            #expect(try harness.storedSession() == nil)

            let login = try await harness.notes(["login", "--username", TestAccount.username, "--password-stdin"],
                                                stdin: TestAccount.password + "\n")
            #expect(login.exitCode == 0, "\(login.stderr)")
            #expect(login.stderr.contains("Signed in to \(harness.serverURL)"), "\(login.stderr)")
            #expect(try await harness.notes(["whoami"]).exitCode == 0)
        }
    }
}
