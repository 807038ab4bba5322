import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The login throttle's fixed windows, read from the injected clock: a refused client is told
/// how long to wait, and waiting exactly that long is enough. Nothing here sleeps.
@Suite("Login throttle windows run on the server's clock")
struct LoginWindowClockTests {
    @Test("failed logins of one account from one address are refused until the window that began with the first one ends, then allowed")
    func accountWindowEndsOnTime() async throws {
        try await TestApp.with({ $0.loginLimits.perAccountAndAddress = 3; $0.loginLimits.windowSeconds = 60 }) { (app: TestApp) async throws in
            for _ in 0..<3 {
                #expect(try await app.login(TestAccount.username, "guess").status == 401)
                app.clock.advance(seconds: 10)
            }
            let refused = try await app.login()
            #expect(refused.status == 429 && refused.errorCode == "too_many_requests")
            #expect(refused.header("Retry-After") == "30", "the window began 30 s ago")

            app.clock.advance(seconds: 29.999)
            #expect(try await app.login().status == 429, "refused attempts do not move the window")
            app.clock.advance(seconds: 0.001)
            #expect(try await app.login().status == 200)
        }
    }

    @Test("failed logins from one address across accounts are refused for the rest of the window, and only from that address")
    func addressWindowEndsOnTime() async throws {
        try await TestApp.with({ $0.loginLimits.perAddress = 2; $0.loginLimits.windowSeconds = 120 }) { (app: TestApp) async throws in
            #expect(try await app.login("u1", "guess", from: "192.0.2.7").status == 401)
            #expect(try await app.login("u2", "guess", from: "192.0.2.7").status == 401)
            app.clock.advance(seconds: 100)
            let refused = try await app.login(from: "192.0.2.7")
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") == "20")
            #expect(try await app.login(from: "192.0.2.8").status == 200, "another address is not limited")

            app.clock.advance(seconds: 20)
            #expect(try await app.login(from: "192.0.2.7").status == 200)
        }
    }
}
