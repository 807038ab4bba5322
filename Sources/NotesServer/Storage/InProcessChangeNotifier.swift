import Synchronization

/// The `ChangeNotifier` of a server that is alone on its database (SQLite): writes and waiting
/// requests meet in this process.
///
/// A waiter is a continuation in a table keyed by user, so holding one costs a few hundred bytes
/// and no thread; a change resumes only that user's continuations. Each waiter's deadline is a
/// sleeping task, cancelled when a change or `close()` ends the wait first.
final class InProcessChangeNotifier: ChangeNotifier {
    private struct Waiter {
        let continuation: CheckedContinuation<ChangeWaitOutcome, Never>
        var deadline: Task<Void, Never>?
    }

    private struct State {
        /// Change signals per user since the process started (absent: none yet).
        var marks: [Int64: UInt64] = [:]
        var waiters: [Int64: [UInt64: Waiter]] = [:]
        var nextWaiter: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    init() {}

    func mark(for user: Int64) -> ChangeMark {
        state.withLock { ChangeMark(value: $0.marks[user] ?? 0) }
    }

    func wait(user: Int64, after mark: ChangeMark, until deadline: ContinuousClock.Instant) async -> ChangeWaitOutcome {
        await withCheckedContinuation { continuation in
            // An outcome already decided is given under the lock (resuming never blocks).
            let registered: UInt64? = state.withLock { state in
                if state.closed {
                    continuation.resume(returning: .closed)
                    return nil
                }
                let now = ChangeMark(value: state.marks[user] ?? 0)
                if now > mark {
                    continuation.resume(returning: .changed(now))
                    return nil
                }
                if ContinuousClock.now >= deadline {
                    continuation.resume(returning: .timedOut)
                    return nil
                }
                state.nextWaiter += 1
                state.waiters[user, default: [:]][state.nextWaiter] = Waiter(continuation: continuation)
                return state.nextWaiter
            }
            guard let id = registered else { return }
            let timer = Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                finish(user: user, waiter: id, with: .timedOut)
            }
            // A change may have ended the wait already; then the timer has nothing left to do.
            let kept = state.withLock { state in
                guard state.waiters[user]?[id] != nil else { return false }
                state.waiters[user]?[id]?.deadline = timer
                return true
            }
            if !kept { timer.cancel() }
        }
    }

    func changed(user: Int64) {
        let (mark, woken) = state.withLock { state in
            let value = (state.marks[user] ?? 0) + 1
            state.marks[user] = value
            return (ChangeMark(value: value), state.waiters.removeValue(forKey: user).map { Array($0.values) } ?? [])
        }
        for waiter in woken {
            waiter.deadline?.cancel()
            waiter.continuation.resume(returning: .changed(mark))
        }
    }

    func close() {
        let woken = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in woken {
            waiter.deadline?.cancel()
            waiter.continuation.resume(returning: .closed)
        }
    }

    /// Requests waiting now: for `user`, or for everyone when nil (tests and the bench read it).
    func waiting(user: Int64? = nil) -> Int {
        state.withLock { state in
            guard let user else { return state.waiters.values.reduce(0) { $0 + $1.count } }
            return state.waiters[user]?.count ?? 0
        }
    }

    /// Ends one wait, unless a change or `close()` ended it first.
    private func finish(user: Int64, waiter id: UInt64, with outcome: ChangeWaitOutcome) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiters[user]?.removeValue(forKey: id) else { return nil }
            if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            return waiter
        }
        waiter?.continuation.resume(returning: outcome)
    }
}
