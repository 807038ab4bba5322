import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("Auth: secrets stay out of logs and storage")
struct SecretHygieneTests {
    @Test("no password or token appears in the server log or the database files")
    func noSecretInLogOrDatabase() async throws {
        try await LiveServer.with(account: .added) { server, client in
            var secrets = [TestAccount.password]
            let first = try await client.signIn(device: "laptop")
            let second = try await client.refresh(try #require(first.refreshToken)).decode(TokenResponse.self)
            let personal = try await client.createToken("script", scope: .read, using: second.accessToken)
            secrets += [first.accessToken, try #require(first.refreshToken), second.accessToken, try #require(second.refreshToken),
                        try #require(personal.token)]
            _ = try await client.me(try #require(personal.token))
            _ = try await client.login(TestAccount.username, "a wrong password")
            secrets.append("a wrong password")
            _ = try await client.send("DELETE", "/v1/tokens/\(personal.id)", token: second.accessToken)
            _ = try await client.send("POST", "/v1/auth/logout", token: second.accessToken)

            // The request log is written as requests finish; wait for the last one.
            #expect(try await waitUntil { server.log.contains("/v1/auth/logout 204") })
            let log = server.log
            #expect(log.contains("POST /v1/auth/login 200"), "the log is there to be searched")
            let stored = try await server.database.storedBytes()
            #expect(stored.range(of: Data(TestAccount.username.utf8)) != nil, "the scan sees what is stored")
            for secret in secrets {
                #expect(!log.contains(secret))
                #expect(stored.range(of: Data(secret.utf8)) == nil)
            }
        }
    }
}
