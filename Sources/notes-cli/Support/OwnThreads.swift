#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Runs `body(worker)` for each worker in `0..<count` at once, worker 0 on the calling thread and
/// each other on a thread of its own, and returns once all have finished.
///
/// For CPU or system-call work started from async code (the folder walk):
/// Swift's concurrency pool has one thread per core, so Dispatch's `concurrentPerform` called on
/// a pool thread while the other runs the sync finds no idle thread and runs everything on the
/// caller, one core's work.
func onOwnThreads(_ count: Int, _ body: @Sendable (_ worker: Int) -> Void) {
    guard count > 1 else { return body(0) }
    // Each thread is joined before this returns, and releases its job before it ends, so `body`
    // does not outlive the call (which `withoutActuallyEscaping` checks).
    withoutActuallyEscaping(body) { body in
        var threads: [pthread_t] = []
        var unstarted: [Int] = []
        for worker in 1..<count {
            let job = Unmanaged.passRetained(ThreadJob(worker: worker, body: body)).toOpaque()
            var thread = pthread_t()
            if pthread_create(&thread, nil, { job in
                Unmanaged<ThreadJob>.fromOpaque(job!).takeRetainedValue().run()
                return nil
            }, job) == 0 {
                threads.append(thread)
            } else {
                Unmanaged<ThreadJob>.fromOpaque(job).release()
                unstarted.append(worker)  // no thread to be had: done here, after worker 0
            }
        }
        body(0)
        for worker in unstarted { body(worker) }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// One worker of `onOwnThreads`, handed to its thread.
private final class ThreadJob {
    let worker: Int
    let body: @Sendable (Int) -> Void

    init(worker: Int, body: @escaping @Sendable (Int) -> Void) {
        self.worker = worker
        self.body = body
    }

    func run() { body(worker) }
}

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
