import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Limits that must hold across every server on one PostgreSQL database, so that a guesser or a
/// flood does not get N times the allowance by spreading over N servers: two real
/// `notes-server` processes on one database, as behind a load balancer.
@Suite("PostgreSQL: limits shared by the servers", .needsPostgresCluster)
struct SharedLimitsTests {
    /// Two servers on a fresh database with `arguments`, a user `alice`, stopped after `body`.
    static func withTwoServers(_ arguments: [String], _ body: (TestServer, TestServer) async throws -> Void) async throws {
        try await withPostgresDatabase { database in
            let url = database.url.description
            let a = try await TestServer(extraArguments: arguments, database: url)
            let b: TestServer
            do {
                b = try await TestServer(extraArguments: arguments, database: url)
            } catch {
                await a.stop()
                throw error
            }
            do {
                try await a.addUser("alice", password: "correct horse")
                try await body(a, b)
            } catch {
                await a.stop()
                await b.stop()
                throw error
            }
            await a.stop()
            await b.stop()
        }
    }

    static func login(_ server: TestServer, password: String) async throws -> Int {
        try await TestAPIClient(server).send("POST", "/v1/auth/login", json: LoginRequest(username: "alice", password: password)).status
    }

    @Test("failed sign-ins through two servers add up: the account-and-address limit refuses the next one on either")
    func loginThrottleSharedAcrossServers() async throws {
        try await Self.withTwoServers(["--login-attempts", "3"]) { a, b in
            var statuses: [Int] = []
            for (server, password) in [(a, "wrong 1"), (b, "wrong 2"), (a, "wrong 3"), (b, "wrong 4"), (b, "correct horse")] {
                statuses.append(try await Self.login(server, password: password))
            }
            // A server counting alone would have seen only its own attempts and let the fourth through.
            #expect(statuses == [401, 401, 401, 429, 429], "the fourth attempt, even with the right password, is refused by either server")
        }
    }

    @Test("requests admitted by one server are charged to the client's allowance on the other")
    func requestRateSharedAcrossServers() async throws {
        try await Self.withTwoServers(["--requests-per-minute", "20"]) { a, b in
            let clientA = TestAPIClient(a), clientB = TestAPIClient(b)
            var admitted = 0
            for _ in 0..<20 {
                if try await clientA.send("GET", "/v1/limits").status != 429 { admitted += 1 }
            }
            #expect(admitted == 20, "server A admits the minute's burst")
            // Server B learns within two exchange periods (A reports, then B reads: about two
            // seconds, more on a loaded machine). Alone it would admit 20 more, and more still as
            // the minute refills them: 15 s of polls a second apart are at most 16 requests, so a
            // refusal can only come from what A admitted, however late the exchange runs.
            let refused = try await waitUntil(timeout: 15, every: .seconds(1)) {
                try await clientB.send("GET", "/v1/limits").status == 429
            }
            #expect(refused, "server B refuses the address within a few requests")
        }
    }
}
