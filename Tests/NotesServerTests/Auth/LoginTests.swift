import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

@Suite("Auth: sign-in, disabled accounts and password changes")
struct LoginTests {
    @Test("login answers a Bearer access token and a refresh token, never cached")
    func loginReturnsUncachedBearerTokens() async throws {
        try await LiveServer.with(["--access-token-ttl", "120"], account: .added) { _, client in
            let response = try await client.login(TestAccount.username, TestAccount.password, device: "laptop")
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let tokens = try response.decode(TokenResponse.self)
            #expect(tokens.tokenType == "Bearer")
            #expect(tokens.expiresIn == 120)
            #expect(tokens.accessToken.hasPrefix("nat_"))
            #expect(tokens.refreshToken?.hasPrefix("nrt_") == true)
            #expect(tokens.user.username == TestAccount.username)
            let me = try await client.me(tokens.accessToken)
            #expect(me.status == 200)
            #expect(try me.decode(UserResource.self).username == TestAccount.username)
        }
    }

    @Test("an unknown user gets the same answer as a wrong password, after the same password work")
    func unknownUserLooksLikeWrongPassword() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let wrong = try await client.login(TestAccount.username, "not the password")
            let started = Date()
            let unknown = try await client.login("nobody", "not the password")
            let unknownSeconds = Date().timeIntervalSince(started)
            #expect(wrong.status == 401)
            #expect(unknown.status == wrong.status)
            #expect(unknown.body == wrong.body)
            #expect(unknown.errorCode == "invalid_credentials")
            #expect(unknown.header("WWW-Authenticate") == wrong.header("WWW-Authenticate"))
            // argon2id verification costs tens of milliseconds here; an unknown name that skipped
            // it would answer in about one. (Only a lower bound: load can slow, never speed, it.)
            #expect(unknownSeconds >= 0.02)
        }
    }

    @Test("a session records its device (control characters dropped), creation and last use")
    func sessionRecordsDeviceAndTimes() async throws {
        try await LiveServer.with(account: .added) { server, client in
            _ = try await client.signIn(device: "work-laptop\u{1B}[31m")
            let list = try await server.admin(["sessions", "list", "--user", TestAccount.username])
            #expect(list.exitCode == 0)
            let rows = list.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            let row = try #require(rows.first)
            #expect(rows.count == 1)
            #expect(row[1] == TestAccount.username)
            #expect(row[2] == "work-laptop[31m")
            #expect(row[3].hasSuffix("Z") && row[4].hasSuffix("Z"))
            #expect(row[5] == "active")
            #expect(!list.stdout.contains("\u{1B}"))
        }
    }

    @Test("a disabled user cannot sign in and every session and personal token stops at once")
    func disabledUserLosesEverything() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let tokens = try await client.signIn()
            let personal = try await client.createToken("script", scope: .read, using: tokens.accessToken)
            #expect(try await server.admin(["user", "disable", TestAccount.username]).exitCode == 0)

            let access = try await client.me(tokens.accessToken)
            #expect(access.status == 401)
            #expect(access.header("WWW-Authenticate")?.contains(#"error_description="The access token was revoked""#) == true)
            #expect(try await client.me(try #require(personal.token)).status == 401)
            let refresh = try await client.refresh(try #require(tokens.refreshToken))
            #expect(refresh.status == 401 && refresh.errorCode == "invalid_grant")
            let login = try await client.login(TestAccount.username, TestAccount.password)
            #expect(login.status == 403 && login.errorCode == "account_disabled", "the right password learns the account is disabled")

            #expect(try await server.admin(["user", "enable", TestAccount.username]).exitCode == 0)
            _ = try await client.signIn()
            #expect(try await client.me(tokens.accessToken).status == 401, "enabling again does not revive old tokens")
        }
    }

    @Test("changing the password ends every session and personal token; only the new password works")
    func passwordChangeEndsSessions() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let tokens = try await client.signIn()
            let personal = try await client.createToken("script", scope: .write, using: tokens.accessToken)
            let passwd = try await server.admin(["user", "passwd", TestAccount.username, "--password-stdin"], stdin: "a brand new secret\n")
            #expect(passwd.exitCode == 0)

            #expect(try await client.me(tokens.accessToken).status == 401)
            #expect(try await client.me(try #require(personal.token)).status == 401)
            #expect(try await client.refresh(try #require(tokens.refreshToken)).errorCode == "invalid_grant")
            #expect(try await client.login(TestAccount.username, TestAccount.password).status == 401)
            #expect(try await client.login(TestAccount.username, "a brand new secret").status == 200)
        }
    }

    @Test("a sign-in that hits an unexpected error answers a bare 500 and logs it with the request id")
    func unexpectedLoginErrorIsLoggedWithRequestID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ServerConfiguration()
        configuration.databasePath = directory.appending("notes.sqlite").path
        let log = LogSink()
        let app = try buildApplication(configuration, log: log.append)
        // A closed database makes the account lookup throw a DatabaseError, not an HTTPError.
        try app.database.close()
        let body = try WireJSON.encoder().encode(LoginRequest(username: "alice", password: "secret words"))
        let request = HTTPRequest(method: "POST", path: "/v1/auth/login", body: Array(body))
        guard case .later(let work) = app.router.respond(to: request) else {
            Issue.record("a login is checked off the connection thread")
            return
        }
        let response = await work()
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"internal_error""#))
        #expect(!String(decoding: response.body, as: UTF8.self).contains("closed"), "no internal detail reaches the client")
        let line = try #require(log.lines.first { $0.hasPrefix("req=\(request.id) internal error: ") })
        #expect(!line.contains("secret words"))
    }
}
