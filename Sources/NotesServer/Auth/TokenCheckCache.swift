import Synchronization

/// Stored tokens that `GET /v1/notes/{id}` looked up lately, each kept for at most a second, so
/// that reading notes again and again does not read the token's row each time.
///
/// Only the lookup is saved: every use still runs every check of `TokenAuthenticator` (revoked,
/// disabled, expired against the current time, the scope) on the kept row, and records the use
/// as often as an uncached check would. What a kept row can miss is a change made elsewhere: a
/// revocation, a disabled or deleted account, made by another server or an admin command in
/// another process, takes effect here within `lifetime`. Such changes made through this server
/// call `forgetAll()` once committed, and take effect at its next request.
///
/// Keyed by the token's SHA-256 digest, as the database keeps it: no secret is held. At most
/// `capacity` tokens are kept; past that, expired ones are dropped first, then any.
final class TokenCheckCache: Sendable {
    /// The longest a row is used after it was read.
    static let lifetime: Duration = .seconds(1)
    /// The default bound on tokens kept (those used in the last second).
    static let defaultCapacity = 4096

    /// Where forgetting stood before a database read (see `keep`).
    struct Mark: Sendable {
        fileprivate let value: UInt64
    }

    private struct Entry {
        var token: BearerTokenRecord
        let readAt: ContinuousClock.Instant
    }

    /// A digest as a dictionary key, hashed as one run of bytes: `[UInt8]`'s own hashing feeds
    /// the hasher a byte at a time, which cost more than the rest of the lookup on every GET.
    private struct Key: Hashable {
        let digest: [UInt8]

        func hash(into hasher: inout Hasher) {
            digest.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Bumped by every `forgetAll`; marks are its values.
        var generation: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameter now: the monotonic time the lifetime is measured in (tests move it).
    init(capacity: Int = TokenCheckCache.defaultCapacity, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.capacity = capacity
        self.now = now
    }

    /// The row stored under `digest`, read less than `lifetime` ago, or `nil`.
    func token(digest: [UInt8]) -> BearerTokenRecord? {
        let now = now()
        return state.withLock { state in
            let key = Key(digest: digest)
            guard let entry = state.entries[key] else { return nil }
            guard now - entry.readAt < Self.lifetime else {
                state.entries[key] = nil
                return nil
            }
            return entry.token
        }
    }

    /// Where forgetting stands now: take it before the database read whose row goes to `keep`.
    func mark() -> Mark {
        state.withLock { Mark(value: $0.generation) }
    }

    /// Keeps `token`, read from the database after `mark` was taken, unless `forgetAll()` ran
    /// since (the read may predate a revocation this server committed).
    func keep(_ token: BearerTokenRecord, readAfter mark: Mark) {
        let now = now()
        state.withLock { state in
            guard state.generation == mark.value else { return }
            let key = Key(digest: token.hash)
            if state.entries[key] == nil && state.entries.count >= capacity {
                state.entries = state.entries.filter { now - $0.value.readAt < Self.lifetime }
                if state.entries.count >= capacity, let any = state.entries.keys.first { state.entries[any] = nil }
            }
            state.entries[key] = Entry(token: token, readAt: now)
        }
    }

    /// Replaces the kept row of `token` (same digest) by `token`, whose last use was just recorded,
    /// keeping its read time: so the kept row does not make the next request record the use again.
    func recordedUse(_ token: BearerTokenRecord) {
        state.withLock { state in
            state.entries[Key(digest: token.hash)]?.token = token
        }
    }

    /// Forgets every kept row: a token, session or account changed through this server. Rows
    /// read before this are not kept either.
    func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.entries = [:]
        }
    }

    /// How many rows are kept (tests).
    var count: Int { state.withLock { $0.entries.count } }
}
