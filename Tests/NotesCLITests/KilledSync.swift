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
/// `POST /v1/batch`: a client killed while `isHolding` was mid-upload, with that batch stored.
final class BatchHold: Sendable {
    let proxy: HoldingProxy
    private let batches: Batches

    private final class Batches: Sendable {
        let state = Mutex((seen: 0, holdAt: Int.max))
    }

    /// Proxies to the server on `upstreamPort`, holding nothing until `hold(batch:)`.
    init(upstreamPort: Int) throws {
        let batches = Batches()
        self.batches = batches
        proxy = try HoldingProxy(upstreamPort: upstreamPort) { request in
            guard request.method == "POST" && request.path == "/v1/batch" else { return false }
            return batches.state.withLock { $0.seen += 1; return $0.seen == $0.holdAt }
        }
    }

    /// Holds the answer to the `ordinal`-th batch from now (1: the next one).
    func hold(batch ordinal: Int) {
        batches.state.withLock { $0.holdAt = $0.seen + ordinal }
    }

    var isHolding: Bool { proxy.isHolding }
}

extension SyncHarness {
    /// This harness with its client talking through `hold`'s proxy, signed in there.
    func through(_ hold: BatchHold) async throws -> SyncHarness {
        var client = client
        client.via = hold.proxy.baseURL
        let harness = SyncHarness(client: client, work: work)
        try await harness.client.login()
        return harness
    }
}
