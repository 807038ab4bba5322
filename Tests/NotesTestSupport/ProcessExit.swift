import Foundation
import Synchronization

/// Waits for a child process to exit without a thread parked in `waitUntilExit()`, which on
/// Linux spins a run loop at full CPU; the exit is reported by the process's termination handler.
///
/// Create it before `process.run()`: it installs the termination handler.
public final class ProcessExit: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())

    public init(_ process: Process) {
        process.terminationHandler = { [self] finished in
            let status = finished.terminationStatus
            let waiters = state.withLock { state in
                state.status = status
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume(returning: status) }
        }
    }

    /// Whether the process has exited.
    public var hasExited: Bool { state.withLock { $0.status != nil } }

    /// The exit status, once the process has exited.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status: Int32? = state.withLock { state in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// The exit status, or `nil` if the process is still running after `timeout`.
    public func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = state.withLock({ $0.status }) { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return state.withLock { $0.status }
    }
}
