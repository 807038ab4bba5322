import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Enforces every request's idle timeout and deadline (`RequestTimeouts`) from one task that
/// runs only while requests are in flight, rather than a task of its own per request.
///
/// A task per request was created, put to sleep on a timer and cancelled (waking a thread) for
/// every request: an upload of 10,000 notes sends over 400 batches, each a few milliseconds.
/// The shared task wakes every `tick` (a quarter of the shortest idle timeout in flight, between
/// 50 ms and 1 s), so a timeout is noticed at most that much late, and stops once nothing is in
/// flight (a long-running `notes watch` has no timer while idle).
final class TransferWatchdog: Sendable {
    /// One request watched: how to stop it and when.
    private struct Watched {
        var transfer: Transfer
        var task: URLSessionTask
        var timeouts: RequestTimeouts
        var deadline: ContinuousClock.Instant
        var what: String
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var nextKey = 0
        var running = false
    }

    private let state = Mutex(State())

    /// Watches `transfer` (on `task`) from now on; returns the key to `stopWatching` it with.
    func watch(_ transfer: Transfer, task: URLSessionTask, timeouts: RequestTimeouts, what: String) -> Int {
        let entry = Watched(transfer: transfer, task: task, timeouts: timeouts,
                            deadline: ContinuousClock.now + timeouts.deadline, what: what)
        let (key, start) = state.withLock { state -> (Int, Bool) in
            let key = state.nextKey
            state.nextKey += 1
            state.watched[key] = entry
            defer { state.running = true }
            return (key, !state.running)
        }
        if start { Task { await self.run() } }
        return key
    }

    /// Stops watching the request `key` names (its caller has the outcome).
    func stopWatching(_ key: Int) {
        _ = state.withLock { $0.watched.removeValue(forKey: key) }
    }

    /// Checks every request in flight each tick until none is left.
    private func run() async {
        let clock = ContinuousClock()
        while true {
            let tick: Duration? = state.withLock { state in
                state.watched = state.watched.filter { $0.value.transfer.lastActivity != nil }
                guard let shortest = state.watched.values.map(\.timeouts.idle).min() else {
                    state.running = false
                    return nil
                }
                return min(.seconds(1), max(.milliseconds(50), shortest / 4))
            }
            guard let tick else { return }
            try? await Task.sleep(for: tick, tolerance: tick / 5, clock: clock)
            check(now: clock.now)
        }
    }

    /// Stops each request past its deadline or idle for its idle timeout, recording why so the
    /// caller gets that reason rather than "cancelled".
    private func check(now: ContinuousClock.Instant) {
        let due = state.withLock { state -> [(Watched, TransportError)] in
            var due: [(Watched, TransportError)] = []
            for (key, entry) in state.watched {
                guard let lastActivity = entry.transfer.lastActivity else {
                    state.watched[key] = nil
                    continue
                }
                if now >= entry.deadline {
                    due.append((entry, TransportError(kind: .deadlineExceeded, description:
                        "the server did not finish answering \(entry.what) within \(RequestTimeouts.text(entry.timeouts.deadline)); gave up")))
                } else if now - lastActivity >= entry.timeouts.idle {
                    due.append((entry, TransportError(kind: .timedOut, description:
                        "the server sent nothing for \(RequestTimeouts.text(entry.timeouts.idle)) while answering \(entry.what)")))
                } else {
                    continue
                }
                state.watched[key] = nil
            }
            return due
        }
        for (entry, error) in due {
            entry.transfer.fail(error)
            entry.task.cancel()
        }
    }
}
