import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("Auth: brute-force and request-rate limits")
struct ThrottleTests {
    @Test("failed logins on one account from one address are limited: 429 with Retry-After, even for the right password")
    func perAccountLimit() async throws {
        try await LiveServer.with(["--login-attempts", "3", "--login-window", "60"], account: .added) { _, client in
            for _ in 0..<3 {
                #expect(try await client.login(TestAccount.username, "guess").status == 401)
            }
            let limited = try await client.login(TestAccount.username, TestAccount.password)
            #expect(limited.status == 429)
            #expect(limited.errorCode == "too_many_requests")
            let retryAfter = try #require(limited.header("Retry-After").flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
            #expect(try await client.login("someone-else", "guess").status == 401, "other accounts are not limited")
        }
    }

    @Test("an unknown account is limited exactly like a known one")
    func unknownAccountLimitedAlike() async throws {
        try await LiveServer.with(["--login-attempts", "2"], account: .added) { _, client in
            for name in [TestAccount.username, "nobody"] {
                let statuses = try await [client.login(name, "x").status, client.login(name, "x").status, client.login(name, "x").status]
                #expect(statuses == [401, 401, 429])
            }
        }
    }

    @Test("failed logins per client address are limited across accounts")
    func perAddressLimit() async throws {
        try await LiveServer.with(["--login-attempts-per-address", "3"], account: .added) { _, client in
            for name in ["u1", "u2", "u3"] {
                #expect(try await client.login(name, "guess").status == 401)
            }
            let limited = try await client.login(TestAccount.username, TestAccount.password)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") != nil)
        }
    }

    @Test("a successful login resets the failure count of its account and address")
    func successResetsAccount() async throws {
        try await LiveServer.with(["--login-attempts", "3"], account: .added) { _, client in
            // Without the reset, the second round's first guess would be the fourth attempt: refused.
            for round in 1...2 {
                let guesses = try await [client.login(TestAccount.username, "guess").status,
                                         client.login(TestAccount.username, "guess").status]
                let success = try await client.login(TestAccount.username, TestAccount.password).status
                #expect(guesses == [401, 401], "round \(round)")
                #expect(success == 200, "round \(round)")
            }
        }
    }

    @Test("requests beyond the published per-client rate get 429 with Retry-After")
    func requestRateLimit() async throws {
        // One request a minute: no machine is slow enough for the allowance to refill mid-test.
        try await LiveServer.with(["--requests-per-minute", "1"], account: .none) { _, client in
            let limits = try await client.send("GET", "/v1/limits")
            #expect(limits.status == 200)
            #expect(try limits.decode(ServerLimits.self).requestsPerMinute == 1)
            let limited = try await client.send("GET", "/healthz")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "too_many_requests")
            let retryAfter = try #require(limited.header("Retry-After").flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
        }
    }
}
