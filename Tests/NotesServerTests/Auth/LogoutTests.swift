import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("Auth: logout")
struct LogoutTests {
    @Test("logout ends the session: its refresh token and every access token issued in it stop at once")
    func logoutRevokesSession() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let first = try await client.signIn(device: "laptop")
            let second = try await client.refresh(try #require(first.refreshToken)).decode(TokenResponse.self)
            let other = try await client.signIn(device: "phone")
            #expect(try await client.me(first.accessToken).status == 200, "a rotated-away access token lives until it expires")

            let logout = try await client.send("POST", "/v1/auth/logout", token: second.accessToken)
            #expect(logout.status == 204)

            for token in [first.accessToken, second.accessToken] {
                let response = try await client.me(token)
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate")?.contains(#"error_description="The access token was revoked""#) == true)
            }
            #expect(try await client.refresh(try #require(second.refreshToken)).errorCode == "invalid_grant")
            #expect(try await client.me(other.accessToken).status == 200, "other sessions are untouched")
        }
    }

    @Test("logout with a personal token is refused: those are revoked through /v1/tokens")
    func logoutWithPersonalTokenIsRefused() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let session = try await client.signIn()
            let personal = try await client.createToken("script", scope: .write, using: session.accessToken)
            let secret = try #require(personal.token)
            let logout = try await client.send("POST", "/v1/auth/logout", token: secret)
            #expect(logout.status == 400)
            #expect(logout.errorCode == "not_a_session")
            #expect(try await client.me(session.accessToken).status == 200)
        }
    }
}
