import NotesCore

/// The server's wall clock in Unix milliseconds. Used for token lifetimes, grace windows,
/// sign-in throttles, purges and timestamps shown to people; sync never depends on it
/// (revisions order changes).
///
/// Time is a dependency: every store and throttle takes the clock it is given, so tests pass a
/// clock they advance by hand and check expiry, grace and throttling without sleeping.
struct ServerClock: Sendable {
    private let read: @Sendable () -> Int64

    /// The system's wall clock.
    init() {
        read = { WireTime.nowMilliseconds() }
    }

    /// A clock that reads the time from `now` (Unix milliseconds), for tests.
    init(_ now: @escaping @Sendable () -> Int64) {
        read = now
    }

    /// The current time in Unix milliseconds.
    func now() -> Int64 { read() }
}
