import Foundation
import NotesTestSupport
import Synchronization
import Testing

/// A `notes` child killed with SIGKILL at an observed moment of its work (a batch in the
/// server's log, a file in the folder), never after a fixed delay, so a kill test knows it
/// interrupted the sync rather than hoping so.
struct KilledSync {
    /// Whether `trigger` held before the deadline or the child's own exit.
    let sawTrigger: Bool
    /// Whether the child died of the SIGKILL, that is, it was still working when it came.
    let killedBySignal: Bool

    /// Both: the kill landed while the sync was under way.
    var landedMidSync: Bool { sawTrigger && killedBySignal }

    /// Starts `notes ARGS` in `environment`, polls `trigger` every 5 ms, and kills the child with
    /// SIGKILL as soon as it holds; waits for the child to be gone.
    static func run(_ arguments: [String], environment: [String: String],
                    when trigger: () throws -> Bool) async throws -> KilledSync {
        let child = try ChildProcess(BuiltProducts.client, arguments,
                                     environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
        var saw = false
        _ = try await waitUntil(timeout: 60, every: .milliseconds(5)) {
            saw = try trigger()
            return saw || child.hasExited
        }
        // A child that already exited was reaped: `send` then signals nobody.
        child.send(SIGKILL)
        await child.wait()
        let killed = child.termination == .signalled(SIGKILL)
        return KilledSync(sawTrigger: saw, killedBySignal: killed)
    }
}

/// A proxy in front of the harness's server that holds back the server's answer to a chosen
/// request of one kind (`POST /v1/batch`, `GET /v1/changes`): a client killed while
/// `isHolding` was mid-sync, with that request's work done on the server.
final class RequestHold: Sendable {
    let proxy: HoldingProxy
    private let counts: Counts

    private final class Counts: Sendable {
        let state = Mutex((seen: 0, holdAt: Int.max))
    }

    /// Proxies to the server on `upstreamPort`, counting the requests `matching` picks and
    /// holding none until `hold(_:)`.
    init(upstreamPort: Int, matching: @escaping @Sendable (ScriptedHTTPServer.Request) -> Bool) throws {
        let counts = Counts()
        self.counts = counts
        proxy = try HoldingProxy(upstreamPort: upstreamPort) { request in
            guard matching(request) else { return false }
            return counts.state.withLock { $0.seen += 1; return $0.seen == $0.holdAt }
        }
    }

    /// Holds `POST /v1/batch` answers.
    static func batches(upstreamPort: Int) throws -> RequestHold {
        try RequestHold(upstreamPort: upstreamPort) { $0.method == "POST" && $0.path == "/v1/batch" }
    }

    /// Holds the answer to the `ordinal`-th matching request from now (1: the next one).
    func hold(_ ordinal: Int) {
        counts.state.withLock { $0.holdAt = $0.seen + ordinal }
    }

    var isHolding: Bool { proxy.isHolding }
}

extension LiveServer {
    /// This harness with its client talking through `hold`'s proxy, signed in there.
    func through(_ hold: RequestHold) async throws -> LiveServer {
        var harness = self
        harness.via = hold.proxy.baseURL
        try await harness.login()
        return harness
    }
}
