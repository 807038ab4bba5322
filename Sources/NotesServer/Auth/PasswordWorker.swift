import Foundation
import NotesCore

/// Runs argon2id work on its own small pool, off the HTTP threads and Swift's cooperative pool.
///
/// Each hash costs tens of milliseconds of CPU on purpose, so the pool is bounded (by default
/// one thread per core) and so is its queue: beyond `maxWaiting` callers the server answers
/// 503 instead of letting a login flood pile up unbounded work.
final class PasswordWorker: Sendable {
    private let queue: OperationQueue
    private let maxWaiting: Int

    init(concurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), maxWaiting: Int = 64) {
        let queue = OperationQueue()
        queue.name = "notes.password"
        queue.maxConcurrentOperationCount = concurrency
        queue.qualityOfService = .userInitiated
        self.queue = queue
        self.maxWaiting = maxWaiting
        // The decoy hash is made on first use; make it now, so the first sign-in with an unknown
        // name does not take twice as long as a wrong password (which would tell them apart).
        queue.addOperation { _ = PasswordHash.decoy }
    }

    /// Whether `password` matches `hash`; verifies against a decoy hash when `hash` is `nil`,
    /// so an unknown user costs the same time as a wrong password.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        try await run {
            let matches = PasswordHash.verify(password, against: hash ?? PasswordHash.decoy)
            return hash != nil && matches
        }
    }

    /// A new argon2id hash of `password`.
    func hash(_ password: String) async throws -> String {
        try await run { try PasswordHash.make(password) }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard queue.operationCount < maxWaiting else {
            throw HTTPError(503, code: "busy", message: "The server is busy checking passwords; retry shortly.", headers: ["Retry-After": "1"])
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
