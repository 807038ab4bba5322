import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("HTTP: client address behind a trusted proxy, end to end")
struct TrustedProxyTests {
    /// Statuses of /healthz asked from 127.0.0.1 with each X-Forwarded-For, in order.
    private func statuses(_ server: TestServer, forwardedFor hops: [String]) async throws -> [Int] {
        var statuses: [Int] = []
        for hop in hops {
            statuses.append(try await TestAPIClient(server).send("GET", "/healthz", headers: ["X-Forwarded-For": hop]).status)
        }
        return statuses
    }

    @Test("with --trusted-proxy 127.0.0.0/8 each X-Forwarded-For client gets its own request rate")
    func forwardedClientsAreRateLimitedApart() async throws {
        let server = try await TestServer(extraArguments: ["--trusted-proxy", "127.0.0.0/8", "--trusted-proxy", "::1", "--requests-per-minute", "1"])
        let answered = await Result(catching: { try await statuses(server, forwardedFor: ["203.0.113.1", "203.0.113.2", "6.6.6.6, 203.0.113.3", "203.0.113.1"]) })
        await server.stop()
        #expect(try answered.get() == [200, 200, 200, 429], "the fourth repeats the first client; the forged 6.6.6.6 is never the key")
    }

    @Test("without --trusted-proxy X-Forwarded-For is ignored: every request counts for the peer")
    func forwardedForIgnoredByDefault() async throws {
        let server = try await TestServer(extraArguments: ["--requests-per-minute", "1"])
        let answered = await Result(catching: { try await statuses(server, forwardedFor: ["203.0.113.1", "203.0.113.2"]) })
        await server.stop()
        #expect(try answered.get() == [200, 429])
    }

    @Test("--trusted-proxy refuses what is not an address or CIDR range, naming it")
    func badRangeIsAUsageError() async throws {
        let result = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--trusted-proxy", "10.0.0.1/8", "--listen", "127.0.0.1:0"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("10.0.0.1/8"))
    }
}

extension Result where Failure == any Error {
    /// Captures an async throwing call, so cleanup can run before the outcome is checked.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
