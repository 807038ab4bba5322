import Synchronization

/// How often a shared connection was taken, how long takers waited for it, and how many hold
/// one right now: what a server's metrics show of its database pool.
public final class WaitTally: Sendable {
    /// The counts at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Connections taken so far.
        public var acquisitions = 0
        /// Seconds spent waiting for them, all takers together.
        public var waitSeconds: Double = 0
        /// Takers that got no connection: none came free in time, or none could be opened.
        public var failures = 0
        /// Connections held right now.
        public var inUse = 0
    }

    private let counts = Mutex(Snapshot())

    public init() {}

    /// A connection was taken after waiting `wait`; call `released()` when it is given back.
    public func acquired(after wait: Duration) {
        let (seconds, attoseconds) = wait.components
        counts.withLock { counts in
            counts.acquisitions += 1
            counts.waitSeconds += Double(seconds) + Double(attoseconds) * 1e-18
            counts.inUse += 1
        }
    }

    /// A connection taken earlier was given back.
    public func released() {
        counts.withLock { $0.inUse -= 1 }
    }

    /// A taker got no connection after waiting `wait`.
    public func failed(after wait: Duration) {
        let (seconds, attoseconds) = wait.components
        counts.withLock { counts in
            counts.failures += 1
            counts.waitSeconds += Double(seconds) + Double(attoseconds) * 1e-18
        }
    }

    public var snapshot: Snapshot { counts.withLock { $0 } }
}
