import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The authenticated client's refresh rules against the real `notes-server`: the in-process
/// client (real libcurl transport) and the real `notes` binary share one HOME, so "another process"
/// is a real one. Refreshes and requests are counted in the server's request log.
@Suite("Authenticated client: refresh and replay")
struct AuthRefreshTests {
    static let refreshes = "POST /v1/auth/refresh "

    @Test("an access token inside its refresh margin is replaced by one refresh before 10 concurrent requests go out, so none is refused")
    func refreshesAheadOfExpiry() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let held = try #require(try harness.storedSession())
            // The client's clock inside the margin (the last minute of the hour-long token) but
            // short of expiry: the server still takes this token, so only the client's look-ahead
            // makes it refresh.
            let inMargin = Date(timeIntervalSince1970: held.accessExpiresAt - held.refreshMargin / 2)
            let client = try harness.apiClient(holding: held, now: { inMargin })

            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 { group.addTask { try await client.me().username } }
                for try await name in group { #expect(name == "ada") }
            }
            #expect(try await waitUntil { harness.logCount("GET /v1/me 200") == 10 })
            #expect(harness.logCount("GET /v1/me 401") == 0)
            #expect(harness.logCount(Self.refreshes) == 1)
            #expect(try harness.storedSession()?.refreshToken != held.refreshToken)
        }
    }

    @Test("a 401 that arrives after its token was already replaced replays with the new token and refreshes nothing")
    func late401DoesNotRefreshAgain() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let held = try #require(try harness.storedSession())
            let client = try harness.apiClient(holding: held)
            let first = try await client.refresh(replacing: held)
            // A second request that was sent with `held` before the refresh now reports its 401.
            let late = try await client.refresh(replacing: held)
            #expect(late == first)
            #expect(late.accessToken != held.accessToken)
            #expect(try await client.me().username == "ada")
            #expect(try await waitUntil { harness.logCount("GET /v1/me 200") == 1 })
            #expect(harness.logCount(Self.refreshes) == 1)
        }
    }

    @Test("a refresh that fails because the server is gone keeps the stored tokens and reports it unreachable (exit 5)")
    func networkFailureKeepsTokens() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let held = try #require(try harness.storedSession())
            let before = try Data(contentsOf: URL(fileURLWithPath: harness.credentialsPath))
            // The client's clock past the token's expiry: the request must refresh first.
            let expired = Date(timeIntervalSince1970: held.accessExpiresAt + 1)
            let client = try harness.apiClient(holding: held, retryPolicy: .fast, now: { expired })
            await harness.server.stop()

            let error = await #expect(throws: ClientError.self) { try await client.me() }
            #expect(error?.isUnreachable == true)
            #expect(error.map { CLI.outcome(of: $0).exitCode } == .serverUnreachable)
            #expect(try Data(contentsOf: URL(fileURLWithPath: harness.credentialsPath)) == before)
            // Not taken for a dead session either: the next request tries the network again.
            #expect(try client.sessionProvider?.current() == held)
        }
    }

    @Test("after a password change on the server, invalid_grant forgets the session, and later requests fail without another refresh")
    func invalidGrantClearsTheFailingSession() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let client = try harness.apiClient(holding: try #require(try harness.storedSession()), retryPolicy: .fast)
            let passwd = try await harness.server.admin(["user", "passwd", TestAccount.username, "--password-stdin"], stdin: "a brand new password\n")
            #expect(passwd.exitCode == 0, "\(passwd.stderr)")

            let error = await #expect(throws: ClientError.self) { try await client.me() }
            #expect(error.map { CLI.outcome(of: $0).exitCode } == .signInRequired)
            #expect(error.map { CLI.outcome(of: $0).sentence } == "session expired or revoked: run `notes login`")
            #expect(try harness.storedSession() == nil)
            await #expect(throws: ClientError.self) { try await client.me() }
            #expect(try await waitUntil { harness.logCount("POST /v1/auth/refresh 401") == 1 })
            #expect(harness.logCount(Self.refreshes) == 1)
            #expect(harness.logCount("GET /v1/me 401") == 1)
        }
    }

    @Test("a user disabled mid-session gets exit 4 from notes after one refresh attempt, and the session is forgotten")
    func disabledUserIsSignedOut() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            #expect(try await harness.notes(["whoami"]).exitCode == 0)
            #expect(try await harness.server.admin(["user", "disable", TestAccount.username]).exitCode == 0)

            let result = try await harness.notes(["ls"])
            #expect(result.exitCode == 4)
            #expect(result.stderr == "notes ls: session expired or revoked: run `notes login`\n")
            #expect(try harness.storedSession() == nil)
            #expect(try await waitUntil { harness.logCount("POST /v1/auth/refresh 401") == 1 })
            #expect(harness.logCount("GET /v1/notes 401") == 1)
        }
    }

    @Test("tokens rotated by another notes process are adopted: this process makes no refresh of its own and keeps them")
    func adoptsTokensRotatedByAnotherProcess() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            // Both processes read the session an hour later, as far as their clocks can tell.
            let held = try await harness.expireStoredAccessToken()
            let client = try harness.apiClient(holding: held)

            let other = try await harness.notes(["whoami"])
            #expect(other.exitCode == 0, "\(other.stderr)")
            let rotated = try #require(try harness.storedSession())
            #expect(rotated.refreshToken != held.refreshToken)
            #expect(try await waitUntil { harness.logCount(Self.refreshes) == 1 })

            #expect(try await client.me().username == "ada")
            #expect(try await waitUntil { harness.logCount("GET /v1/me 200") == 2 })
            #expect(harness.logCount(Self.refreshes) == 1)
            #expect(try harness.storedSession() == rotated)
            #expect(await client.session == rotated)
        }
    }

    @Test("when a revoked session is refused, a newer login that another process stored meanwhile is adopted, never cleared")
    func newerLoginSurvivesARefusedSession() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let client = try harness.apiClient(holding: try #require(try harness.storedSession()))
            let newPassword = "a brand new password"
            #expect(try await harness.server.admin(["user", "passwd", TestAccount.username, "--password-stdin"], stdin: newPassword + "\n").exitCode == 0)
            let relogin = try await harness.notes(["login", "--server", harness.serverURL, "--username", TestAccount.username, "--password-stdin"],
                                                  stdin: newPassword + "\n")
            #expect(relogin.exitCode == 0, "\(relogin.stderr)")
            let newer = try #require(try harness.storedSession())

            // Our token is refused (401); under the lock the stored session is the newer one: use it.
            #expect(try await client.me().username == "ada")
            #expect(try harness.storedSession() == newer)
            #expect(try await waitUntil { harness.logCount("GET /v1/me 200") == 1 })
            #expect(harness.logCount("GET /v1/me 401") == 1)
            #expect(harness.logCount(Self.refreshes) == 0)
        }
    }
}
