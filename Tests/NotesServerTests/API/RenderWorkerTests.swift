import Foundation
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// The pool large notes are rendered on: a bounded share per user, the rest of the users unaffected.
@Suite("Render worker")
struct RenderWorkerTests {
    /// A rendering that holds the pool until `release()`, and says when it started.
    final class Gate: Sendable {
        private let state = Mutex((started: false, released: false))
        var started: Bool { state.withLock { $0.started } }
        func release() { state.withLock { $0.released = true } }
        /// Runs on the worker's own thread (never the cooperative pool), so it may wait there.
        func hold() -> String {
            state.withLock { $0.started = true }
            while !state.withLock({ $0.released }) { usleep(1_000) }
            return "held"
        }
    }

    @Test("past a user's share the answer is 503 busy with Retry-After, while another user's rendering is still taken")
    func userShareIsBounded() async throws {
        let worker = RenderWorker(concurrency: 1, maxWaiting: 8, perUser: 1)
        let gate = Gate()
        let first = Task { try await worker.run(for: 1) { gate.hold() } }
        #expect(try await waitUntil { gate.started })
        await #expect(throws: HTTPError(503, code: "busy", message: "The server is busy rendering notes; retry shortly.",
                                        headers: ["Retry-After": "1"])) {
            try await worker.run(for: 1) { "second" }
        }
        let other = Task { try await worker.run(for: 2) { "other user" } }
        gate.release()
        #expect(try await first.value == "held")
        #expect(try await other.value == "other user")
        #expect(try await worker.run(for: 1) { "again" } == "again", "the share is given back when a rendering ends")
    }

    @Test("past the pool's queue everyone is refused until it drains")
    func queueIsBounded() async throws {
        let worker = RenderWorker(concurrency: 1, maxWaiting: 2, perUser: 2)
        let gate = Gate()
        let first = Task { try await worker.run(for: 1) { gate.hold() } }
        #expect(try await waitUntil { gate.started })
        let second = Task { try await worker.run(for: 2) { "queued" } }
        #expect(try await waitUntil { worker.inFlight == 2 })
        await #expect(throws: HTTPError.self) { try await worker.run(for: 3) { "refused" } }
        gate.release()
        #expect(try await first.value == "held")
        #expect(try await second.value == "queued")
        #expect(try await worker.run(for: 3) { "taken" } == "taken")
    }
}
