import Foundation
import NotesCore

/// Runs argon2id work on its own small pool, off the HTTP threads and Swift's cooperative pool.
///
/// Each hash costs tens of milliseconds of CPU and `PasswordHash.memoryBytes` (19 MiB) of
/// memory on purpose, so the pool is bounded and so is its queue: beyond `maxWaiting` callers
/// the server answers 503 instead of letting a login flood pile up unbounded work. One hash at
/// a time by default keeps the server's peak near its idle size plus 19 MiB, within the 64 MiB of
/// docs/architecture.md's Performance targets; at ~30-40 ms a hash that is still some 25 sign-ins a second.
final class PasswordWorker: Sendable {
    private let pool: WorkPool
    private let maxWaiting: Int

    init(concurrency: Int = 1, maxWaiting: Int = 64) {
        pool = WorkPool(name: "notes.password", concurrency: concurrency)
        self.maxWaiting = maxWaiting
        // The decoy hash is made on first use; make it now, so the first sign-in with an unknown
        // name does not take twice as long as a wrong password (which would tell them apart).
        pool.start { _ = PasswordHash.decoy }
    }

    /// Whether `password` matches `hash`; verifies against a decoy hash when `hash` is `nil`,
    /// so an unknown user costs the same time as a wrong password; the same for an empty hash
    /// (an account made by an identity provider, which has no password).
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let hash = hash?.isEmpty == true ? nil : hash
        return try await run {
            let matches = PasswordHash.verify(password, against: hash ?? PasswordHash.decoy)
            return hash != nil && matches
        }
    }

    /// A hash of `password` at today's cost when `stored` (which `password` just matched) was
    /// made at another one, such as an older server's 64 MiB hashes; `nil` when it is current.
    func upgradedHash(of password: String, replacing stored: String) async throws -> String? {
        guard PasswordHash.needsRehash(stored) else { return nil }
        return try await hash(password)
    }

    /// A new argon2id hash of `password`.
    func hash(_ password: String) async throws -> String {
        try await run { try PasswordHash.make(password) }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard pool.operationCount < maxWaiting else {
            throw HTTPError(503, code: "busy", message: "The server is busy checking passwords; retry shortly.", headers: ["Retry-After": "1"])
        }
        return try await pool.run(work)
    }
}
