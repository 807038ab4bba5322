import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

@Suite("Auth: RFC 6750 answers")
struct BearerChallengeTests {
    @Test("no credentials, or another scheme, get 401 with a bare Bearer challenge")
    func missingCredentials() async throws {
        try await LiveServer.with(account: .none) { _, client in
            for authorization in [nil, "Basic YWxpY2U6c2VjcmV0"] {
                let response = try await client.send("GET", "/v1/me", authorization: authorization)
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate") == #"Bearer realm="notes""#)
                #expect(response.errorCode == "unauthenticated")
            }
        }
    }

    @Test("a malformed Authorization header gets 400 invalid_request",
          arguments: ["Bearer", "Bearer   ", "Bearer one two", "Bearer nat_<script>"])
    func malformedHeader(authorization: String) async throws {
        try await LiveServer.with(account: .none) { _, client in
            let response = try await client.send("GET", "/v1/me", authorization: authorization)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_request")
            #expect(response.header("WWW-Authenticate") == #"Bearer realm="notes", error="invalid_request""#)
        }
    }

    @Test("two Authorization headers get 400 invalid_request")
    func twoAuthorizationHeaders() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let response = try await RawHTTP.exchange(port: UInt16(server.port), """
                GET /v1/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n
                """)
            #expect(response.status == 400)
            #expect(response.text.contains("invalid_request"))
        }
    }

    @Test("an unusable token gets 401 invalid_token saying why, and nothing about the secret")
    func invalidTokens() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let tokens = try await client.signIn()
            let unknown = "nat_" + String(repeating: "A", count: 43)
            let cases: [(token: String, description: String)] = [
                (unknown, "The access token is unknown"),
                ("nat_short", "The access token is malformed"),
                ("github_pat_0123456789", "The access token is malformed"),
                (try #require(tokens.refreshToken), "The access token is a refresh token, which only POST /v1/auth/refresh accepts"),
            ]
            for (token, description) in cases {
                let response = try await client.me(token)
                #expect(response.status == 401)
                #expect(response.errorCode == "invalid_token")
                #expect(response.header("WWW-Authenticate") == #"Bearer realm="notes", error="invalid_token", error_description="\#(description)""#)
                #expect(!response.text.contains(token))
            }
            // A token differing from a real one only in its last character is just "unknown".
            var near = tokens.accessToken
            near.removeLast()
            near.append(tokens.accessToken.last == "A" ? "B" : "A")
            #expect(try await client.me(near).header("WWW-Authenticate")?.contains("is unknown") == true)
        }
    }
}
