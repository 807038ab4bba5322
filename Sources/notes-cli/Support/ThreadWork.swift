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

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            let outcome = Result { try body() }
            let waiter = state.withLock { state in
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: outcome)
        }.start()
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
