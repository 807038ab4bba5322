import Synchronization

/// Limits password guessing without letting a stranger lock an account's owner out (OWASP ASVS
/// V2.2.1: throttle guesses, never a long lockout). Three limits, each a `Refusal` with the wait
/// (which the API answers with 429 and `Retry-After`):
///
/// - **per account and client address**: `perAccountAndAddress` attempts per window, then that
///   address waits for the window to end. This stops one guesser; the owner signing in from
///   another address is not affected.
/// - **per account, from every address**: from `slowdownAfter` attempts in a row on, each attempt
///   must come a delay after the previous one, a delay that doubles from 1 s up to
///   `maxDelaySeconds` and never grows past it. Guessing from many addresses is slowed to a crawl,
///   and the owner waits at most that delay. The run ends after a window without any attempt.
/// - **per client address, across accounts**: `perAddress` attempts per window (one address
///   trying one password on many accounts).
///
/// Every attempt is counted when it starts, before the password is checked, so a burst of
/// concurrent guesses cannot all slip in before the first failure is recorded; a success gives
/// its attempt back and clears its account-and-address count. Unknown usernames are counted
/// exactly like known ones, so the limits cannot tell them apart either. A refused attempt is
/// not counted, so waiting is always enough.
///
/// Where the counts live: in memory for a server alone on its database (SQLite; a restart
/// forgets them), bounded: each table holds at most `capacity` keys, dropping finished entries
/// first and then the ones closest to finishing. Servers sharing a PostgreSQL database share the
/// counts in its `login_attempts` table instead (`shared`), so N servers do not give a guesser
/// N times the attempts; each attempt is then one short transaction, rows past their expiry go
/// as attempts meet them.
///
/// Either way an administrator can end a lockout at once, beside the running servers:
/// `notes-server user unlock NAME` records the time in `login_unlocks`, and before refusing an
/// attempt on an account the throttle reads that time and forgets the account's counts made
/// before it (`unlocks`).
final class LoginThrottle: Sendable {
    /// The limits; `--login-attempts`, `--login-attempts-per-address` and `--login-window`.
    struct Limits: Sendable {
        /// Attempts on one account from one address per window.
        var perAccountAndAddress = 10
        /// Attempts from one address on any accounts per window.
        var perAddress = 50
        var windowSeconds = 15 * 60
        /// Attempts on one account, from anywhere, after which attempts are spaced out.
        var slowdownAfter = 20
        /// The longest the spacing between attempts on one account ever grows.
        var maxDelaySeconds = 30
    }

    /// An attempt in progress, to be reported back with `succeeded` when the password matched.
    struct Attempt: Sendable {
        fileprivate let account: String
        fileprivate let address: String
        fileprivate var pair: String { Self.pairKey(account, address) }

        // U+0001: no address holds it, and PostgreSQL's text cannot hold the U+0000 once used here.
        fileprivate static func pairKey(_ account: String, _ address: String) -> String { account + "\u{1}" + address }
    }

    /// Why an attempt must wait: how long and why, in the throttle's own terms. The routing edge
    /// answers it (`HTTPError+Auth`: 429 or 503 with `Retry-After`); the web app's pages show
    /// `webMessage`, the wait in minutes, as people count a lockout.
    struct Refusal: Error, Sendable, Equatable {
        enum Cause: Sendable, Equatable {
            /// A limit says wait `seconds`; `reason` names the limit.
            case wait(reason: String, seconds: Int)
            /// The shared counts could not be read or written (PostgreSQL).
            case storageUnavailable
        }

        let cause: Cause

        init(reason: String, waitSeconds seconds: Int) {
            cause = .wait(reason: reason, seconds: seconds)
        }

        private init(cause: Cause) {
            self.cause = cause
        }

        /// The shared counts could not be read or written (PostgreSQL): try again shortly.
        static let storageUnavailable = Refusal(cause: .storageUnavailable)

        /// How many seconds to wait before trying again.
        var retryAfterSeconds: Int {
            switch cause {
            case .wait(_, let seconds): seconds
            case .storageUnavailable: 5
            }
        }

        /// The refusal as a sentence for a person on a web page.
        var webMessage: String {
            switch cause {
            case .wait(let reason, let seconds): "\(reason). Try again in \(Self.spoken(seconds))."
            case .storageUnavailable: "The server cannot check sign-in attempts right now. Please try again shortly."
            }
        }

        /// A wait as a person reads it: whole minutes, rounded up, from one minute on; seconds below.
        static func spoken(_ seconds: Int) -> String {
            if seconds < 60 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
            let minutes = (seconds + 59) / 60
            return minutes == 1 ? "1 minute" : "\(minutes) minutes"
        }
    }

    /// A refusal before it is said: how long, why, and whether it is about the account (which an
    /// administrator's unlock ends) rather than the address.
    private struct Wait {
        let milliseconds: Int64
        let reason: String
        let byAccount: Bool
    }

    /// The three tables, named as the shared table's `kind` column names them.
    private enum Table: String {
        case pair, account, address
    }

    /// Attempts under one key, and when the key may be forgotten (Unix milliseconds).
    private struct Entry {
        var count: Int
        var last: Int64
        var expiresAt: Int64
    }

    let limits: Limits
    private let clock: ServerClock
    private let capacity: Int
    /// The three tables, in memory (when not `shared`).
    private let state = Mutex<[Table: [String: Entry]]>([:])
    /// Attempts whose password was wrong (or whose account does not exist), for the metrics.
    let failures = Atomic<Int>(0)
    /// Attempts refused for a limit before any password was checked, for the metrics.
    let refusals = Atomic<Int>(0)
    /// The database whose `login_attempts` holds the counts, when servers share one.
    private let shared: ServerDatabase?
    /// Set before every key in the shared table, so throttles with other limits (the device
    /// page's) keep counts of their own there.
    private let scope: String
    /// The database whose `login_unlocks` holds administrators' unlocks, if any.
    private let unlocks: ServerDatabase?

    init(limits: Limits, clock: ServerClock, capacity: Int = 20_000, shared: ServerDatabase? = nil, scope: String = "sign-in",
         unlocks: ServerDatabase? = nil) {
        self.limits = limits
        self.clock = clock
        self.capacity = capacity
        self.shared = shared
        self.scope = scope
        self.unlocks = unlocks
    }

    /// Counts an attempt to sign in as `username` from `address`.
    /// - Throws: `Refusal` when a limit says wait; the attempt is then not counted.
    func begin(username: String, address: String) throws(Refusal) -> Attempt {
        let attempt = Attempt(account: UserStore.key(username), address: address)
        var wait = try count(attempt, unlockedAt: nil)
        // Only a refusal reads the unlocks: an attempt let through costs no extra query.
        if let found = wait, found.byAccount, let unlockedAt = unlockTime(of: attempt.account) {
            wait = try count(attempt, unlockedAt: unlockedAt)
        }
        if let wait {
            refusals.add(1, ordering: .relaxed)
            throw Refusal(reason: wait.reason, waitSeconds: max(1, Int((wait.milliseconds + 999) / 1000)))
        }
        return attempt
    }

    /// `begin`'s decision on whichever tables hold the counts, the account's counts from before
    /// `unlockedAt` forgotten.
    private func count(_ attempt: Attempt, unlockedAt: Int64?) throws(Refusal) -> Wait? {
        let now = clock.now()
        let window = Int64(limits.windowSeconds) * 1000
        guard let shared else {
            return state.withLock { tables in
                decide(attempt, now: now, window: window, unlockedAt: unlockedAt, read: { tables[$0]?[$1] },
                       write: { table, key, entry in Self.insert(key, entry, in: &tables[table, default: [:]], now: now, capacity: capacity) })
            }
        }
        do {
            return try shared.write { db in
                try db.run("DELETE FROM login_attempts WHERE expires_at <= ?", now)
                return try decide(attempt, now: now, window: window, unlockedAt: unlockedAt, read: { try Self.read($0, scoped($1), db) },
                                  write: { try Self.write($0, scoped($1), $2, db) })
            }
        } catch {
            throw .storageUnavailable
        }
    }

    /// When an administrator last unlocked `account` (`user unlock`), if ever. A failed read
    /// counts as never: the throttle then refuses as it would without unlocks.
    private func unlockTime(of account: String) -> Int64? {
        guard let unlocks else { return nil }
        return try? unlocks.read { db in try db.scalarInt("SELECT unlocked_at FROM login_unlocks WHERE account = ?", [account]) }
    }

    /// Records that an administrator unlocked `username` at `now`: every server's throttle
    /// forgets the account's attempts counted before it, at the account's next attempt.
    static func unlock(username: String, in database: ServerDatabase, now: Int64) throws {
        try database.write { db in
            try db.run("""
                INSERT INTO login_unlocks (account, unlocked_at) VALUES (?, ?)
                ON CONFLICT (account) DO UPDATE SET unlocked_at = excluded.unlocked_at
                """, UserStore.key(username), now)
        }
    }

    /// The password was wrong, or the account does not exist: counted for the metrics (the
    /// throttle counted the attempt when it began).
    func failed(_ attempt: Attempt) {
        failures.add(1, ordering: .relaxed)
    }

    /// The password matched: the attempt was no failure. Its account-and-address count starts
    /// over, and the address and the account get the attempt back. The account's run is not
    /// cleared: a guesser elsewhere must not win fast attempts back each time the owner signs in.
    func succeeded(_ attempt: Attempt) {
        if let shared {
            // Best effort: a failed refund leaves the counts as for a failed attempt.
            try? shared.write { db in
                try Self.refund(attempt, read: { try Self.read($0, scoped($1), db) }, write: { try Self.write($0, scoped($1), $2, db) })
            }
        } else {
            state.withLock { tables in
                Self.refund(attempt, read: { tables[$0]?[$1] }, write: { tables[$0, default: [:]][$1] = $2 })
            }
        }
    }

    /// The changes of `succeeded`, on whichever tables hold the counts.
    private static func refund(_ attempt: Attempt, read: (Table, String) throws -> Entry?,
                               write: (Table, String, Entry?) throws -> Void) rethrows {
        try write(.pair, attempt.pair, nil)
        for (table, key) in [(Table.address, attempt.address), (.account, attempt.account)] {
            try write(table, key, refunded(try read(table, key)))
        }
    }

    /// The decision of `begin`, on whichever tables hold the counts: a refusal, or the attempt
    /// counted in all three. The account's entries whose last attempt is not after `unlockedAt`
    /// count as none, and start afresh.
    private func decide(_ attempt: Attempt, now: Int64, window: Int64, unlockedAt: Int64?, read: (Table, String) throws -> Entry?,
                        write: (Table, String, Entry) throws -> Void) rethrows -> Wait? {
        let unlocked = { (entry: Entry?) -> Entry? in
            guard let entry, let unlockedAt, entry.last <= unlockedAt else { return entry }
            return nil
        }
        let pair = unlocked(try read(.pair, attempt.pair)), address = try read(.address, attempt.address)
        let account = unlocked(try read(.account, attempt.account))
        if let wait = Self.windowWait(pair, limit: limits.perAccountAndAddress, now: now) {
            return Wait(milliseconds: wait, reason: "Too many sign-in attempts for this account from your address", byAccount: true)
        }
        if let wait = Self.windowWait(address, limit: limits.perAddress, now: now) {
            return Wait(milliseconds: wait, reason: "Too many sign-in attempts from your address", byAccount: false)
        }
        if let wait = spacingWait(account, now: now) {
            return Wait(milliseconds: wait, reason: "This account has had many failed sign-ins, so attempts are spaced out", byAccount: true)
        }
        try write(.pair, attempt.pair, Self.countedInWindow(pair, now: now, window: window))
        try write(.address, attempt.address, Self.countedInWindow(address, now: now, window: window))
        try write(.account, attempt.account, Self.countedInRun(account, now: now, window: window))
        return nil
    }

    /// `key` in the shared table, where throttles with other scopes keep their counts too.
    private func scoped(_ key: String) -> String { scope + "\u{1}" + key }

    /// The shared table's entry under `key` (expired ones were deleted first).
    private static func read(_ table: Table, _ key: String, _ db: any SQLConnection) throws -> Entry? {
        try db.first("SELECT count, last_at, expires_at FROM login_attempts WHERE kind = ? AND key = ?", [table.rawValue, key]) {
            Entry(count: $0.int(0), last: $0.int64(1), expiresAt: $0.int64(2))
        }
    }

    /// Stores (or with nil, removes) the shared table's entry under `key`.
    private static func write(_ table: Table, _ key: String, _ entry: Entry?, _ db: any SQLConnection) throws {
        guard let entry else {
            try db.run("DELETE FROM login_attempts WHERE kind = ? AND key = ?", table.rawValue, key)
            return
        }
        try db.run("""
            INSERT INTO login_attempts (kind, key, count, last_at, expires_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET count = excluded.count, last_at = excluded.last_at, expires_at = excluded.expires_at
            """, table.rawValue, key, entry.count, entry.last, entry.expiresAt)
    }

    /// The spacing delay after `count` attempts in a run: none below `slowdownAfter`, then
    /// 1 s doubling up to `maxDelaySeconds`, in milliseconds.
    func spacing(afterAttempts count: Int) -> Int64 {
        guard count >= limits.slowdownAfter else { return 0 }
        let doublings = min(count - limits.slowdownAfter, 30)
        return min(Int64(limits.maxDelaySeconds), Int64(1) << doublings) * 1000
    }

    /// Milliseconds until the account's run allows another attempt, or `nil` when it allows one now.
    private func spacingWait(_ entry: Entry?, now: Int64) -> Int64? {
        guard let entry, now < entry.expiresAt else { return nil }
        let delay = spacing(afterAttempts: entry.count)
        // A wall clock set back never makes the wait longer than the delay itself.
        let wait = min(entry.last + delay - now, delay)
        return wait > 0 ? wait : nil
    }

    /// Milliseconds until a window with `limit` attempts allows another, or `nil` when it allows one now.
    private static func windowWait(_ entry: Entry?, limit: Int, now: Int64) -> Int64? {
        guard let entry, now < entry.expiresAt, entry.count >= limit else { return nil }
        return entry.expiresAt - now
    }

    /// An attempt counted in a fixed window that starts with the key's first attempt.
    private static func countedInWindow(_ entry: Entry?, now: Int64, window: Int64) -> Entry {
        guard var entry, now < entry.expiresAt else { return Entry(count: 1, last: now, expiresAt: now + window) }
        entry.count += 1
        entry.last = now
        return entry
    }

    /// An attempt counted in a run that lasts until a whole window passes without attempts.
    private static func countedInRun(_ entry: Entry?, now: Int64, window: Int64) -> Entry {
        guard var entry, now < entry.expiresAt else { return Entry(count: 1, last: now, expiresAt: now + window) }
        entry.count += 1
        entry.last = max(entry.last, now)
        entry.expiresAt = entry.last + window
        return entry
    }

    /// The entry with one attempt given back (nil once none is left).
    private static func refunded(_ entry: Entry?) -> Entry? {
        guard var entry else { return nil }
        entry.count -= 1
        return entry.count > 0 ? entry : nil
    }

    private static func insert(_ key: String, _ entry: Entry, in table: inout [String: Entry], now: Int64, capacity: Int) {
        if table[key] == nil && table.count >= capacity { evict(from: &table, now: now, capacity: capacity) }
        table[key] = entry
    }

    /// Drops finished entries; if that frees too little, the tenth closest to finishing too. Runs
    /// only when a table is full, and frees enough room that the next many inserts do not run it.
    private static func evict(from table: inout [String: Entry], now: Int64, capacity: Int) {
        table = table.filter { now < $0.value.expiresAt }
        let target = capacity - max(1, capacity / 10)
        guard table.count > target else { return }
        let soonest = table.sorted { $0.value.expiresAt < $1.value.expiresAt }.prefix(table.count - target)
        for (key, _) in soonest { table[key] = nil }
    }
}
