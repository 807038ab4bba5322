import Foundation
import Synchronization

/// The WebDAV locks this server holds, in memory: taken, refreshed and released by LOCK and
/// UNLOCK, and checked by WebDAV's own writes only.
///
/// A lock is advice between WebDAV clients (Finder and Windows take one before each write):
/// sync, the API and the web app never look at it, so a lock never blocks the owner's own
/// `notes sync`, and their changes still come with every precondition the API has. A lock never
/// outlives its timeout: an expired one is gone for every question asked from its expiry on
/// (read on the server clock), whether or not it has been swept yet. Kept per server: several
/// servers behind one balancer each know the locks taken through them (docs/architecture.md §3.7).
final class DAVLockTable: Sendable {
    /// The longest a lock may last without refresh, and what `Timeout: Infinite` gets.
    static let maxTimeoutSeconds = 3600
    /// What a LOCK without a `Timeout` gets.
    static let defaultTimeoutSeconds = 600
    /// At most this many locks per account; a LOCK past it answers 503.
    static let maxLocksPerUser = 1000

    private let clock: ServerClock
    private let locks = Mutex<[String: DAVLock]>([:])

    init(clock: ServerClock) {
        self.clock = clock
    }

    /// The live locks of `userID` on `path` of `space` or covering it.
    func covering(userID: Int64, space: String, path: String) -> [DAVLock] {
        live(userID: userID) { $0.covers(space: space, path: path) }
    }

    /// The live locks of `userID` that lie on `path` or inside it, or cover it from above.
    func touching(userID: Int64, space: String, path: String) -> [DAVLock] {
        live(userID: userID) { $0.covers(space: space, path: path) || $0.isInside(space: space, path: path) }
    }

    /// The live lock with `token`, if any.
    func lock(token: String) -> DAVLock? {
        let now = clock.now()
        return locks.withLock { table in table[token].flatMap { $0.expiresAt > now ? $0 : nil } }
    }

    /// Why a new lock cannot be taken.
    enum Refusal: Error {
        /// Another lock is in the way.
        case conflict
        /// The account holds `maxLocksPerUser` already.
        case tooMany
    }

    /// Takes a new lock on `path` unless a lock in the way exists: any lock covering or inside
    /// it for an exclusive one, an exclusive one for a shared one.
    func take(userID: Int64, space: String, path: String, deep: Bool, exclusive: Bool, ownerXML: String,
              timeoutSeconds: Int) throws(Refusal) -> DAVLock {
        let now = clock.now()
        let timeout = min(max(timeoutSeconds, 1), Self.maxTimeoutSeconds)
        let lock = DAVLock(token: "opaquelocktoken:" + UUID().uuidString.lowercased(), userID: userID, space: space, path: path, deep: deep,
                           exclusive: exclusive, ownerXML: ownerXML, timeoutSeconds: timeout, expiresAt: now + Int64(timeout) * 1000)
        let result: Result<DAVLock, Refusal> = locks.withLock { table in
            table = table.filter { $0.value.expiresAt > now }
            let mine = table.values.filter { $0.userID == userID }
            guard mine.count < Self.maxLocksPerUser else { return .failure(.tooMany) }
            let inTheWay = mine.contains { other in
                let overlaps = other.covers(space: space, path: path) || (deep && other.isInside(space: space, path: path))
                return overlaps && (exclusive || other.exclusive)
            }
            guard !inTheWay else { return .failure(.conflict) }
            table[lock.token] = lock
            return .success(lock)
        }
        return try result.get()
    }

    /// Renews the lock `token` for `timeoutSeconds`; nil when it is gone.
    func refresh(token: String, timeoutSeconds: Int) -> DAVLock? {
        let now = clock.now()
        let timeout = min(max(timeoutSeconds, 1), Self.maxTimeoutSeconds)
        return locks.withLock { table in
            guard var lock = table[token], lock.expiresAt > now else { return nil }
            lock.timeoutSeconds = timeout
            lock.expiresAt = now + Int64(timeout) * 1000
            table[token] = lock
            return lock
        }
    }

    /// Releases the lock `token`; false when there was none.
    @discardableResult
    func release(token: String) -> Bool {
        locks.withLock { table in table.removeValue(forKey: token) != nil }
    }

    /// Drops the locks on `path` and inside it (the resource was deleted or moved away).
    func releaseAll(userID: Int64, space: String, under path: String) {
        locks.withLock { table in
            table = table.filter { !($0.value.userID == userID && $0.value.isInside(space: space, path: path)) }
        }
    }

    private func live(userID: Int64, _ matches: (DAVLock) -> Bool) -> [DAVLock] {
        let now = clock.now()
        return locks.withLock { table in
            table.values.filter { $0.userID == userID && $0.expiresAt > now && matches($0) }.sorted { $0.token < $1.token }
        }
    }
}
