import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The sign-in throttle against guessing from many addresses, driven in-process with a test
/// clock: nothing here sleeps.
@Suite("Auth: guessing is throttled without locking the owner out")
struct LoginSlowdownTests {
    @Test("ten failures from one address refuse that address only; the owner signs in from another")
    func guesserIsRefusedOwnerElsewhereIsNot() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            for _ in 0..<10 {
                #expect(try await app.login(TestAccount.username, "guess", from: "10.0.0.66").status == 401)
            }
            let refused = try await app.login(from: "10.0.0.66")
            #expect(refused.status == 429, "even the right password, from the guessing address")
            let retryAfter = try #require(refused.header("Retry-After").flatMap(Int.init))
            #expect((1...900).contains(retryAfter))
            #expect(try await app.login(from: "10.0.0.2").status == 200, "the owner at home is not locked out")

            app.clock.advance(seconds: Double(retryAfter))
            #expect(try await app.login(from: "10.0.0.66").status == 200, "the window has passed")
        }
    }

    @Test("past 20 failures from many addresses, attempts are spaced by a delay doubling from 1 s to at most 30 s")
    func failuresAcrossAddressesAreSpacedOut() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            var delays: [Int] = []
            // 27 failures, each from its own address, so only the per-account spacing can apply.
            for attempt in 0..<27 {
                var response = try await app.login(TestAccount.username, "guess", from: "10.0.1.\(attempt)")
                if response.status == 429 {
                    let wait = try #require(response.header("Retry-After").flatMap(Int.init))
                    delays.append(wait)
                    app.clock.advance(seconds: Double(wait))
                    response = try await app.login(TestAccount.username, "guess", from: "10.0.1.\(attempt)")
                }
                #expect(response.status == 401, "attempt \(attempt + 1)")
            }
            #expect(delays == [1, 2, 4, 8, 16] + [30, 30], "1 s doubling from the 21st attempt, never past 30 s")

            // The owner, from yet another address, inside the delay: told how long to wait, no more.
            let early = try await app.login(from: "10.0.0.2")
            #expect(early.status == 429)
            let wait = try #require(early.header("Retry-After").flatMap(Int.init))
            #expect((1...30).contains(wait))
            app.clock.advance(seconds: Double(wait))
            #expect(try await app.login(from: "10.0.0.2").status == 200, "after the delay the right password works")
        }
    }

    @Test("after a whole window without attempts, an account's failures are forgotten")
    func quietWindowEndsTheSlowdown() async throws {
        try await TestApp.with({ $0.loginLimits.slowdownAfter = 3 }) { (app: TestApp) async throws in
            for attempt in 0..<3 {
                #expect(try await app.login(TestAccount.username, "guess", from: "10.0.2.\(attempt)").status == 401)
            }
            #expect(try await app.login(TestAccount.username, "guess", from: "10.0.2.99").status == 429)
            app.clock.advance(seconds: 15 * 60)
            #expect(try await app.login(TestAccount.username, "guess", from: "10.0.2.99").status == 401)
            #expect(try await app.login(from: "10.0.0.2").status == 200, "no delay: the run started over")
        }
    }
}
