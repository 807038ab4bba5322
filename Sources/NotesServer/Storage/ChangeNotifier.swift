/// Tells long-polling requests that a user's changes feed moved: the one part of the long poll
/// that depends on how many servers share the database.
///
/// One process (SQLite) wakes its own waiters: `InProcessChangeNotifier`. Several servers behind
/// a load balancer (the PostgreSQL backend) must wake waiters on every server: an implementation
/// there sends `NOTIFY notes_changes, '<user id>'` after each commit and, on one `LISTEN`ing
/// connection per server, turns every notification into the same local wake-up.
///
/// Races are closed by marks rather than by locks held across the database read: a request reads
/// `mark(for:)` *before* it reads the feed, and `wait(user:after:until:)` returns at once when a
/// change was signalled after that mark. A change that commits between the read and the wait is
/// therefore never missed, and a change the read already saw at worst costs one more read.
protocol ChangeNotifier: Sendable {
    /// Where the user's change signals stand now; pass it to `wait` after reading the feed.
    func mark(for user: Int64) -> ChangeMark

    /// Waits without holding a thread until a change for `user` is signalled after `mark`, or
    /// `deadline` passes, or the notifier closes; returns at once if one of those already happened.
    func wait(user: Int64, after mark: ChangeMark, until deadline: ContinuousClock.Instant) async -> ChangeWaitOutcome

    /// Signals that `user`'s feed moved; call after the writing transaction committed, never
    /// inside it (a woken request must be able to read what woke it).
    func changed(user: Int64)

    /// Ends every wait with `.closed`, now and from now on (shutdown).
    func close()

    /// Requests waiting on this server now: for `user`, or for everyone when nil (tests and the bench read it).
    func waiting(user: Int64?) -> Int
}

/// A point in one user's sequence of change signals (opaque outside the notifier).
struct ChangeMark: Sendable, Equatable, Comparable {
    let value: UInt64

    static func < (lhs: ChangeMark, rhs: ChangeMark) -> Bool { lhs.value < rhs.value }
}

/// Why a `ChangeNotifier.wait` returned.
enum ChangeWaitOutcome: Sendable, Equatable {
    /// A change was signalled after the mark; `mark` is where the signals stand now.
    case changed(ChangeMark)
    /// The deadline passed with no change.
    case timedOut
    /// The notifier closed (the server is shutting down).
    case closed
}
