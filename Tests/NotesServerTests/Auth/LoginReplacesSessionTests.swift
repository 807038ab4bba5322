import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `replaces_refresh_token` on login: signing in again from one device ends the session it
/// replaces, so `sessions list` shows one session per device.
@Suite("Auth: a new sign-in replaces the device's old session")
struct LoginReplacesSessionTests {
    private func sessionRows(_ server: TestServer, user: String = TestAccount.username) async throws -> [[String]] {
        let list = try await server.admin(["sessions", "list", "--user", user])
        return list.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    }

    private func login(_ client: TestAPIClient, _ username: String = TestAccount.username, _ password: String = TestAccount.password,
                       replacing refreshToken: String?) async throws -> TokenResponse {
        let request = LoginRequest(username: username, password: password, device: "laptop", replacesRefreshToken: refreshToken)
        let response = try await client.send("POST", "/v1/auth/login", json: request)
        try #require(response.status == 200, "login answered \(response.status): \(response.text)")
        return try response.decode(TokenResponse.self)
    }

    @Test("logging in again with the old refresh token ends the old session; one session remains and it works")
    func loginAgainEndsTheReplacedSession() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let old = try await login(client, replacing: nil)
            let new = try await login(client, replacing: old.refreshToken)

            #expect(try await sessionRows(server).count == 1, "one session for one device")
            #expect(try await client.refresh(try #require(old.refreshToken)).errorCode == "invalid_grant")
            #expect(try await client.me(old.accessToken).status == 401)
            #expect(try await client.me(new.accessToken).status == 200)
            #expect(try await client.refresh(try #require(new.refreshToken)).status == 200)
        }
    }

    @Test("a spent refresh token of the session also identifies it")
    func spentTokenIdentifiesTheSession() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let old = try await login(client, replacing: nil)
            let rotated = try await client.refresh(try #require(old.refreshToken)).decode(TokenResponse.self)
            _ = try await client.refresh(try #require(rotated.refreshToken))
            _ = try await login(client, replacing: old.refreshToken)
            #expect(try await sessionRows(server).count == 1)
        }
    }

    @Test("another user's or an unknown refresh token is ignored, and the answer does not tell")
    func foreignOrUnknownTokenIsIgnored() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await server.addUser("bob", password: "bob's long password")
            let bob = try await login(client, "bob", "bob's long password", replacing: nil)
            let mine = try await login(client, replacing: bob.refreshToken)
            #expect(try await client.me(bob.accessToken).status == 200, "bob's session is not alice's to end")
            #expect(try await sessionRows(server, user: "bob").count == 1)

            let unknown = TokenKind.refreshShaped
            let again = try await login(client, replacing: unknown)
            _ = try await login(client, replacing: "not a token at all")
            #expect(try await sessionRows(server).count == 3, "nothing of alice's was replaced")
            #expect(try await client.me(mine.accessToken).status == 200)
            #expect(try await client.me(again.accessToken).status == 200)
        }
    }
}

private enum TokenKind {
    /// A well-formed refresh token no server issued.
    static let refreshShaped = "nrt_" + String(repeating: "A", count: 43)
}
