import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Waits for a child process to exit: one thread of its own parked in `waitpid` reaps it, and
/// every waiter, however many, is resumed with the status.
public final class ProcessExit: Sendable {
    private struct State {
        var termination: ChildProcess.Termination?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())
    /// Signalled once at the exit, for `waitBlocking()`; each waiter passes the signal on.
    private let exited = DispatchSemaphore(value: 0)

    /// Starts reaping `pid`, a child of this process that nobody else waits for.
    init(pid: pid_t) {
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let termination: ChildProcess.Termination = (status & 0x7f) == 0
                ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            let waiters = state.withLock { state in
                state.termination = termination
                defer { state.waiters = [] }
                return state.waiters
            }
            exited.signal()
            waiters.forEach { $0.resume(returning: Self.status(of: termination)) }
        }
        thread.stackSize = 1 << 16
        thread.start()
    }

    /// Whether the process has exited.
    public var hasExited: Bool { state.withLock { $0.termination != nil } }

    /// How the process ended, once it has.
    public var termination: ChildProcess.Termination? { state.withLock { $0.termination } }

    /// The exit status (the signal's number for a process a signal ended), once it has exited.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let termination: ChildProcess.Termination? = state.withLock { state in
                if state.termination == nil { state.waiters.append(continuation) }
                return state.termination
            }
            if let termination { continuation.resume(returning: Self.status(of: termination)) }
        }
    }

    /// `wait()` for synchronous code: blocks the calling thread until the process has exited.
    public func waitBlocking() -> Int32 {
        exited.wait()
        exited.signal()
        return termination.map(Self.status(of:)) ?? -1
    }

    /// The exit status, or `nil` if the process is still running after `timeout`.
    public func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination = self.termination { return Self.status(of: termination) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return termination.map(Self.status(of:))
    }

    private static func status(of termination: ChildProcess.Termination) -> Int32 {
        switch termination {
        case .exited(let code), .signalled(let code): code
        }
    }
}
