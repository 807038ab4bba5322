/// Waits between retries while the server cannot be reached: doubling from one second up to a
/// cap (a minute), each wait drawn between half and all of its step ("equal jitter") so that
/// watchers which lost the server together do not all come back in the same instant.
struct Backoff: Sendable {
    var base: Duration = .seconds(1)
    var cap: Duration
    private(set) var failures = 0

    init(cap: Duration) {
        self.cap = cap
    }

    /// The wait before the next attempt, counting one more failure.
    mutating func next() -> Duration {
        failures += 1
        let step = min(cap.inSeconds, base.inSeconds * Double(1 << min(failures - 1, 16)))
        return .milliseconds(Int((step / 2 + Double.random(in: 0...(step / 2))) * 1000))
    }

    /// Starts again from the shortest wait (after a success).
    mutating func reset() {
        failures = 0
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
