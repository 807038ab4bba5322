import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

@Suite("Auth: personal access tokens")
struct PersonalTokenTests {
    @Test("a personal token's secret is shown once, never listed, works as Bearer, and stops when revoked")
    func createListUseRevoke() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let session = try await client.signIn()
            let created = try await client.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "backup script", scope: .write),
                                                token: session.accessToken)
            #expect(created.status == 201)
            #expect(created.header("Cache-Control") == "no-store")
            let token = try created.decode(PersonalTokenResource.self)
            let secret = try #require(token.token)
            #expect(secret.hasPrefix("npt_"))
            #expect(token.name == "backup script" && token.scope == .write && token.expiresAt == nil)

            #expect(try await client.me(secret).status == 200)
            let list = try await client.send("GET", "/v1/tokens", token: session.accessToken)
            #expect(list.status == 200)
            let listed = try list.decode(PersonalTokenList.self).tokens
            #expect(listed.map(\.id) == [token.id])
            #expect(listed.first?.token == nil)
            #expect(listed.first?.lastUsedAt != nil, "its use was recorded")
            #expect(!list.text.contains(secret))

            #expect(try await client.send("DELETE", "/v1/tokens/\(token.id)", token: session.accessToken).status == 204)
            let revoked = try await client.me(secret)
            #expect(revoked.status == 401)
            #expect(revoked.header("WWW-Authenticate")?.contains(#"error_description="The access token was revoked""#) == true)
            #expect(try await client.send("GET", "/v1/tokens", token: session.accessToken).decode(PersonalTokenList.self).tokens.isEmpty)
            #expect(try await client.send("DELETE", "/v1/tokens/\(token.id)", token: session.accessToken).status == 404)
        }
    }

    @Test("a read token may read but gets 403 insufficient_scope when it writes or manages tokens")
    func readTokenCannotWrite() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let session = try await client.signIn()
            let reader = try #require(try await client.createToken("reader", scope: .read, using: session.accessToken).token)
            let writer = try #require(try await client.createToken("writer", scope: .write, using: session.accessToken).token)
            let note = Data(##"{"path":"hello.md","content":"# Hi\n"}"##.utf8)

            #expect(try await client.send("GET", "/v1/notes", token: reader).status == 200)
            let write = try await client.send("PUT", "/v1/notes/\(UUID().uuidString.lowercased())", token: reader,
                                              headers: ["If-None-Match": "*"], body: note)
            #expect(write.status == 403)
            #expect(write.errorCode == "insufficient_scope")
            #expect(write.header("WWW-Authenticate")?.contains(#"error="insufficient_scope""#) == true)
            #expect(try await client.send("GET", "/v1/tokens", token: reader).status == 403)
            let mint = try await client.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "escalate", scope: .write), token: reader)
            #expect(mint.status == 403)

            let written = try await client.send("PUT", "/v1/notes/\(UUID().uuidString.lowercased())", token: writer,
                                                headers: ["If-None-Match": "*"], body: note)
            #expect(written.status == 201)
        }
    }

    @Test("a personal token with an expiry stops working when it ends")
    func personalTokenExpires() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let session = try await app.signIn()
            let token = try await app.createToken("short", scope: .read, expiresIn: 2, using: session.accessToken)
            #expect(token.expiresAt != nil)
            let secret = try #require(token.token)
            app.clock.advance(seconds: 1.999)
            #expect(await app.me(secret).status == 200)
            app.clock.advance(seconds: 0.001)
            let expired = await app.me(secret)
            #expect(expired.status == 401)
            #expect(expired.header("WWW-Authenticate")?.contains(#"error_description="The access token expired""#) == true)
        }
    }

    @Test("nobody can revoke or see another user's tokens")
    func tokensBelongToTheirOwner() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await server.addUser("bob", password: "bob's own password")
            let alice = try await client.signIn()
            let bob = try await client.signIn("bob", "bob's own password")
            let token = try await client.createToken("alice's", scope: .read, using: alice.accessToken)

            #expect(try await client.send("DELETE", "/v1/tokens/\(token.id)", token: bob.accessToken).status == 404)
            #expect(try await client.send("GET", "/v1/tokens", token: bob.accessToken).decode(PersonalTokenList.self).tokens.isEmpty)
            #expect(try await client.me(try #require(token.token)).status == 200)
        }
    }

    @Test("token requests with a blank name, a bad scope or a bad lifetime are refused with 400",
          arguments: [#"{"name":"  ","scope":"read"}"#, #"{"name":"x","scope":"admin"}"#,
                      #"{"name":"x","scope":"read","expires_in":0}"#, #"{"name":"a\u0007b","scope":"read"}"#])
    func invalidTokenRequests(body: String) async throws {
        try await LiveServer.with(account: .added) { _, client in
            let session = try await client.signIn()
            let response = try await client.send("POST", "/v1/tokens", token: session.accessToken, body: Data(body.utf8))
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_json")
        }
    }

    @Test("a personal token cannot create a token that outlives it: 403 exceeds_creator, and shorter ones are allowed")
    func personalTokenCannotMintALongerLivedOne() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let session = try await client.signIn()
            let shortLived = try #require(try await client.createToken("ci", scope: .write, expiresIn: 600, using: session.accessToken).token)

            for expiresIn in [nil, 3600] as [Int?] {
                let refused = try await client.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "forever", scope: .write, expiresIn: expiresIn),
                                                    token: shortLived)
                #expect(refused.status == 403, "expires_in \(String(describing: expiresIn))")
                #expect(refused.errorCode == "exceeds_creator")
                #expect(refused.text.contains("expires_in"), "the message says what is allowed")
            }
            let listed = try await client.send("GET", "/v1/tokens", token: session.accessToken).decode(PersonalTokenList.self)
            #expect(listed.tokens.map(\.name) == ["ci"], "nothing was created")

            let shorter = try await client.createToken("child", scope: .read, expiresIn: 60, using: shortLived)
            #expect(try await client.me(try #require(shorter.token)).status == 200)

            // Only a token's own limits bind it: a token that never expires, or a session, may make one that never expires.
            let permanent = try #require(try await client.createToken("server", scope: .write, using: session.accessToken).token)
            _ = try await client.createToken("server-child", scope: .write, using: permanent)
        }
    }
}
