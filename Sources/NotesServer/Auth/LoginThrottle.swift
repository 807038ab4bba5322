import Dispatch
import Synchronization

/// Limits password guessing: at most so many sign-in attempts per account and per client
/// address within a window, answered with 429 and `Retry-After` beyond that.
///
/// Every attempt is counted when it starts, before the password is checked, so a burst of
/// concurrent guesses cannot all slip in before the first failure is recorded; a success then
/// clears the account's count and gives the address its attempt back. Unknown usernames are
/// counted exactly like known ones, so the limit cannot tell them apart either.
///
/// The state is in memory (a restart forgets it) and bounded: each table holds at most
/// `capacity` keys, dropping finished windows first and then the oldest ones.
final class LoginThrottle: Sendable {
    /// The limits; `--login-attempts`, `--login-attempts-per-address` and `--login-window`.
    struct Limits: Sendable {
        var perAccount = 10
        var perAddress = 50
        var windowSeconds = 15 * 60
    }

    /// An attempt in progress, to be reported back with `succeeded` when the password matched.
    struct Attempt: Sendable {
        fileprivate let account: String
        fileprivate let address: String
    }

    /// Attempts under one key since `start`.
    private struct Window {
        var start: UInt64
        var count: Int
    }

    private struct State {
        var accounts: [String: Window] = [:]
        var addresses: [String: Window] = [:]
    }

    let limits: Limits
    private let capacity: Int
    private let state = Mutex(State())

    init(limits: Limits, capacity: Int = 20_000) {
        self.limits = limits
        self.capacity = capacity
    }

    /// Counts an attempt to sign in as `username` from `address`.
    /// - Throws: `HTTPError` 429 with `Retry-After` when either limit is used up; the attempt is
    ///   then not counted, so waiting is always enough.
    func begin(username: String, address: String) throws(HTTPError) -> Attempt {
        let attempt = Attempt(account: username.lowercased(), address: address)
        let now = DispatchTime.now().uptimeNanoseconds
        let window = UInt64(limits.windowSeconds) * 1_000_000_000
        let wait: UInt64? = state.withLock { state in
            let accountWait = Self.wait(state.accounts[attempt.account], limit: limits.perAccount, now: now, window: window)
            let addressWait = Self.wait(state.addresses[attempt.address], limit: limits.perAddress, now: now, window: window)
            if accountWait != nil || addressWait != nil { return max(accountWait ?? 0, addressWait ?? 0) }
            Self.record(attempt.account, in: &state.accounts, now: now, window: window, capacity: capacity)
            Self.record(attempt.address, in: &state.addresses, now: now, window: window, capacity: capacity)
            return nil
        }
        if let wait {
            let seconds = Int((wait + 999_999_999) / 1_000_000_000)
            throw HTTPError(429, code: "too_many_requests",
                            message: "Too many sign-in attempts; retry after \(seconds) seconds.",
                            headers: ["Retry-After": String(max(1, seconds))])
        }
        return attempt
    }

    /// The password matched: forget the account's failures and refund the address its attempt.
    func succeeded(_ attempt: Attempt) {
        state.withLock { state in
            state.accounts[attempt.account] = nil
            if let window = state.addresses[attempt.address] {
                state.addresses[attempt.address] = window.count > 1 ? Window(start: window.start, count: window.count - 1) : nil
            }
        }
    }

    /// Nanoseconds until `entry` allows another attempt, or `nil` when it allows one now.
    private static func wait(_ entry: Window?, limit: Int, now: UInt64, window: UInt64) -> UInt64? {
        guard let entry, now - entry.start < window, entry.count >= limit else { return nil }
        return entry.start + window - now
    }

    private static func record(_ key: String, in table: inout [String: Window], now: UInt64, window: UInt64, capacity: Int) {
        if let entry = table[key], now - entry.start < window {
            table[key] = Window(start: entry.start, count: entry.count + 1)
            return
        }
        if table[key] == nil && table.count >= capacity { evict(from: &table, now: now, window: window, capacity: capacity) }
        table[key] = Window(start: now, count: 1)
    }

    /// Drops finished windows; if that frees too little, the oldest tenth too. Runs only when a
    /// table is full, and frees enough room that the next many inserts do not run it again.
    private static func evict(from table: inout [String: Window], now: UInt64, window: UInt64, capacity: Int) {
        table = table.filter { now - $0.value.start < window }
        let target = capacity - max(1, capacity / 10)
        guard table.count > target else { return }
        let oldest = table.sorted { $0.value.start < $1.value.start }.prefix(table.count - target)
        for (key, _) in oldest { table[key] = nil }
    }
}
