import Synchronization
@testable import NotesServer

/// A wall clock that only moves when a test says so: expiry, grace windows and throttles are
/// tested by advancing it, never by sleeping.
final class TestClock: Sendable {
    private let milliseconds: Mutex<Int64>

    /// Starts at a fixed, ordinary moment (2027-01-15) so runs are reproducible.
    init(startMilliseconds: Int64 = 1_800_000_000_000) {
        milliseconds = Mutex(startMilliseconds)
    }

    /// The current test time, in Unix milliseconds.
    var now: Int64 { milliseconds.withLock { $0 } }

    /// Moves the clock forward by `seconds` (fractions allowed).
    func advance(seconds: Double) {
        milliseconds.withLock { $0 += Int64((seconds * 1000).rounded()) }
    }

    /// The clock as the server takes it.
    var serverClock: ServerClock {
        ServerClock { [self] in now }
    }
}
