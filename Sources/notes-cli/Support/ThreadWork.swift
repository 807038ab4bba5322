import Foundation
import Synchronization

/// Work started now on a thread of its own, off Swift's concurrency pool (whose threads it would
/// otherwise hold while it blocks in system calls), its outcome awaited later.
final class ThreadWork<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())
    /// Signalled once the outcome is in, for `wait()`.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            let outcome = Result { try body() }
            let waiter = state.withLock { state in
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            finished.signal()
            waiter?.resume(with: outcome)
        }.start()
    }

    /// The outcome, blocking this thread until the work is done (for a thread that is not on
    /// Swift's pool: the walk's own thread waiting for its other half).
    func wait() -> Result<Value, any Error> {
        finished.wait()
        finished.signal()  // for any later wait
        return state.withLock { $0.outcome } ?? .failure(CancellationError())
    }

    /// The outcome, once the work is done.
    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = state.withLock { state in
                    if state.outcome == nil { state.waiter = continuation }
                    return state.outcome
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        }
    }
}
