import Synchronization

/// Limits password guessing without letting a stranger lock an account's owner out (OWASP ASVS
/// V2.2.1: throttle guesses, never a long lockout). Three limits, each answered with 429 and
/// `Retry-After`:
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
/// The state is in memory (a restart forgets it) and bounded: each table holds at most
/// `capacity` keys, dropping finished entries first and then the ones closest to finishing.
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

        fileprivate static func pairKey(_ account: String, _ address: String) -> String { account + "\u{0}" + address }
    }

    /// Attempts under one key, and when the key may be forgotten (Unix milliseconds).
    private struct Entry {
        var count: Int
        var last: Int64
        var expiresAt: Int64
    }

    private struct State {
        var pairs: [String: Entry] = [:]
        var accounts: [String: Entry] = [:]
        var addresses: [String: Entry] = [:]
    }

    let limits: Limits
    private let clock: ServerClock
    private let capacity: Int
    private let state = Mutex(State())

    init(limits: Limits, clock: ServerClock, capacity: Int = 20_000) {
        self.limits = limits
        self.clock = clock
        self.capacity = capacity
    }

    /// Counts an attempt to sign in as `username` from `address`.
    /// - Throws: `HTTPError` 429 with `Retry-After` when a limit says wait; the attempt is then
    ///   not counted.
    func begin(username: String, address: String) throws(HTTPError) -> Attempt {
        let attempt = Attempt(account: UserStore.key(username), address: address)
        let now = clock.now()
        let window = Int64(limits.windowSeconds) * 1000
        let refusal: (wait: Int64, reason: String)? = state.withLock { state in
            if let wait = Self.windowWait(state.pairs[attempt.pair], limit: limits.perAccountAndAddress, now: now) {
                return (wait, "Too many sign-in attempts for this account from your address")
            }
            if let wait = Self.windowWait(state.addresses[attempt.address], limit: limits.perAddress, now: now) {
                return (wait, "Too many sign-in attempts from your address")
            }
            if let wait = spacingWait(state.accounts[attempt.account], now: now) {
                return (wait, "This account has had many failed sign-ins, so attempts are spaced out")
            }
            Self.countInWindow(attempt.pair, in: &state.pairs, now: now, window: window, capacity: capacity)
            Self.countInWindow(attempt.address, in: &state.addresses, now: now, window: window, capacity: capacity)
            Self.countInRun(attempt.account, in: &state.accounts, now: now, window: window, capacity: capacity)
            return nil
        }
        if let refusal {
            let seconds = max(1, Int((refusal.wait + 999) / 1000))
            throw HTTPError(429, code: "too_many_requests", message: "\(refusal.reason); retry after \(seconds) seconds.",
                            headers: ["Retry-After": String(seconds)])
        }
        return attempt
    }

    /// The password matched: the attempt was no failure. Its account-and-address count starts
    /// over, and the address and the account get the attempt back. The account's run is not
    /// cleared: a guesser elsewhere must not win fast attempts back each time the owner signs in.
    func succeeded(_ attempt: Attempt) {
        state.withLock { state in
            state.pairs[attempt.pair] = nil
            Self.refund(attempt.address, in: &state.addresses)
            Self.refund(attempt.account, in: &state.accounts)
        }
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

    /// Counts an attempt in a fixed window that starts with the key's first attempt.
    private static func countInWindow(_ key: String, in table: inout [String: Entry], now: Int64, window: Int64, capacity: Int) {
        if var entry = table[key], now < entry.expiresAt {
            entry.count += 1
            entry.last = now
            table[key] = entry
            return
        }
        insert(key, Entry(count: 1, last: now, expiresAt: now + window), in: &table, now: now, capacity: capacity)
    }

    /// Counts an attempt in a run that lasts until a whole window passes without attempts.
    private static func countInRun(_ key: String, in table: inout [String: Entry], now: Int64, window: Int64, capacity: Int) {
        if var entry = table[key], now < entry.expiresAt {
            entry.count += 1
            entry.last = max(entry.last, now)
            entry.expiresAt = entry.last + window
            table[key] = entry
            return
        }
        insert(key, Entry(count: 1, last: now, expiresAt: now + window), in: &table, now: now, capacity: capacity)
    }

    private static func refund(_ key: String, in table: inout [String: Entry]) {
        guard var entry = table[key] else { return }
        entry.count -= 1
        table[key] = entry.count > 0 ? entry : nil
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
