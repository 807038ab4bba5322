import Foundation

/// Runs blocking work (reading a pipe to its end, waiting for a process) on a thread of its own.
///
/// Never on Swift's cooperative pool, which has one thread per core (two here): a test that parks
/// those threads in `read(2)` stalls every other test's async work, the server's `.later`
/// handlers in in-process tests included. Nor on GCD's global queue, which grows slowly.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// `onOwnThread` for work that can throw.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
