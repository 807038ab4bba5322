import Synchronization

/// Wakes one waiting task: the watcher's loop, when a file event, a remote change or a stop
/// request arrives, or the poller, when a sync has finished. A signal sent while nobody waits
/// is kept for the next wait, so none is lost between a check and the wait that follows it.
///
/// Waits are on the monotonic `ContinuousClock`: a clock jump neither stalls nor fires them, and
/// after a suspended laptop wakes, what fell due meanwhile runs once.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one to wait.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next signal, at `deadline` (nil: none), or when the task is cancelled.
    /// One task waits at a time.
    func wait(until deadline: ContinuousClock.Instant?) async {
        let timer = deadline.map { deadline in
            Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { signal() }
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
