import Foundation

/// A small pool of threads of its own for CPU-heavy work (password hashing, rendering large
/// notes), off the HTTP threads and Swift's cooperative pool. Its owner bounds what it queues.
final class WorkPool: Sendable {
    private let queue: OperationQueue

    /// - Parameters:
    ///   - name: the threads' name, as a debugger shows it.
    ///   - concurrency: how many pieces of work run at once.
    init(name: String, concurrency: Int) {
        queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = concurrency
        queue.qualityOfService = .userInitiated
    }

    /// Pieces of work queued or running.
    var operationCount: Int { queue.operationCount }

    /// Queues `work` without waiting for it.
    func start(_ work: @escaping @Sendable () -> Void) {
        queue.addOperation(work)
    }

    /// Runs `work` on the pool and returns what it returns (or throws what it throws).
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
