import Synchronization

/// The `ChangeNotifier` of a server that is alone on its database (SQLite): writes and waiting
/// requests meet in this process.
///
/// A waiter is a continuation in a table keyed by user, so holding one costs a few hundred bytes
/// and no thread; a change resumes only that user's continuations. Deadlines are kept by one
/// sleeping task for the whole table, set for the earliest deadline (a task per waiter cost
/// about 2 KiB each), which ends every wait due by then and sleeps again until the next.
///
/// Every change it hears also goes to the note cache, so a kept note never outlives a change.
final class InProcessChangeNotifier: ChangeNotifier {
    private struct Waiter {
        let continuation: CheckedContinuation<ChangeWaitOutcome, Never>
        let deadline: ContinuousClock.Instant
    }

    private struct State {
        /// Change signals per user since the process started (absent: none yet).
        var marks: [Int64: UInt64] = [:]
        var waiters: [Int64: [UInt64: Waiter]] = [:]
        var nextWaiter: UInt64 = 0
        /// The deadline the sweeper sleeps until, and which sweeper that is (an earlier
        /// deadline replaces it; a replaced sweeper that wakes anyway finds it is not current).
        var sweep: (deadline: ContinuousClock.Instant, generation: UInt64)?
        var sweeper: Task<Void, Never>?
        var sweeperGeneration: UInt64 = 0
        var closed = false
    }

    /// Waits due within this much of a sweep end in that sweep, so waits that began together
    /// are ended by one wake-up rather than one each.
    private static let sweepTolerance: Duration = .milliseconds(50)

    private let state = Mutex(State())
    /// Forgets the changed user's kept notes before any waiter is woken (and before the write's
    /// request is answered).
    private let notes: NoteCache?

    init(notes: NoteCache? = nil) {
        self.notes = notes
    }

    func mark(for user: Int64) -> ChangeMark {
        state.withLock { ChangeMark(value: $0.marks[user] ?? 0) }
    }

    func wait(user: Int64, after mark: ChangeMark, until deadline: ContinuousClock.Instant) async -> ChangeWaitOutcome {
        await withCheckedContinuation { continuation in
            // An outcome already decided is given under the lock (resuming never blocks).
            state.withLock { state in
                if state.closed {
                    continuation.resume(returning: .closed)
                    return
                }
                let now = ChangeMark(value: state.marks[user] ?? 0)
                if now > mark {
                    continuation.resume(returning: .changed(now))
                    return
                }
                if ContinuousClock.now >= deadline {
                    continuation.resume(returning: .timedOut)
                    return
                }
                state.nextWaiter += 1
                state.waiters[user, default: [:]][state.nextWaiter] = Waiter(continuation: continuation, deadline: deadline)
                if state.sweep.map({ deadline < $0.deadline }) ?? true {
                    scheduleSweep(at: deadline, in: &state)
                }
            }
        }
    }

    func changed(user: Int64) {
        notes?.forget(user: user)
        let (mark, woken) = state.withLock { state in
            let value = (state.marks[user] ?? 0) + 1
            state.marks[user] = value
            return (ChangeMark(value: value), state.waiters.removeValue(forKey: user).map { Array($0.values) } ?? [])
        }
        for waiter in woken {
            waiter.continuation.resume(returning: .changed(mark))
        }
    }

    func close() {
        let woken = state.withLock { state in
            state.closed = true
            state.sweeper?.cancel()
            state.sweeper = nil
            state.sweep = nil
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in woken {
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

    /// Replaces the sweeper with one that wakes at `deadline`.
    private func scheduleSweep(at deadline: ContinuousClock.Instant, in state: inout State) {
        state.sweeper?.cancel()
        state.sweeperGeneration += 1
        let generation = state.sweeperGeneration
        state.sweep = (deadline, generation)
        state.sweeper = Task { [self] in
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return // replaced by an earlier deadline, or closed
            }
            sweep(generation: generation)
        }
    }

    /// Ends every wait whose deadline has come, then sleeps until the next one.
    private func sweep(generation: UInt64) {
        let expired = state.withLock { state -> [Waiter] in
            guard state.sweep?.generation == generation else { return [] }
            state.sweep = nil
            state.sweeper = nil
            let due = ContinuousClock.now + Self.sweepTolerance
            var expired: [Waiter] = []
            var next: ContinuousClock.Instant?
            for (user, waiters) in state.waiters {
                for (id, waiter) in waiters {
                    if waiter.deadline <= due {
                        expired.append(waiter)
                        state.waiters[user]?[id] = nil
                    } else if next.map({ waiter.deadline < $0 }) ?? true {
                        next = waiter.deadline
                    }
                }
                if state.waiters[user]?.isEmpty == true { state.waiters[user] = nil }
            }
            if let next { scheduleSweep(at: next, in: &state) }
            return expired
        }
        for waiter in expired {
            waiter.continuation.resume(returning: .timedOut)
        }
    }
}
