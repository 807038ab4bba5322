import Foundation
import Synchronization

/// Work a server repeats once a `period` on a thread of its own (not the GCD pool, which grows
/// slowly on two cores), from `start(_:)` until `stop()`. A failure is logged once per run of
/// failures, so an outage of the database is one line, and the work is tried again next period.
final class PeriodicWork: Sendable {
    private let name: String
    private let period: Duration
    private let log: @Sendable (String) -> Void
    private let failure: @Sendable (any Error) -> String
    private let stopped = Atomic<Bool>(false)

    /// `failure` is the line logged when a run of failures begins.
    init(name: String, period: Duration, log: @escaping @Sendable (String) -> Void,
         failure: @escaping @Sendable (any Error) -> String) {
        self.name = name
        self.period = period
        self.log = log
        self.failure = failure
    }

    /// Starts doing `work` once a period, the first time a period from now.
    func start(_ work: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in run(work) }
        thread.name = name
        thread.start()
    }

    /// Ends the work after the round in progress.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func run(_ work: @Sendable () throws -> Void) {
        let seconds = Double(period.components.seconds) + Double(period.components.attoseconds) / 1e18
        var failures = 0
        while true {
            Thread.sleep(forTimeInterval: seconds)
            // Checked after the sleep too: what the work uses may be closed by now.
            if stopped.load(ordering: .relaxed) { return }
            do {
                try work()
                failures = 0
            } catch {
                if failures == 0 { log(failure(error)) }
                failures += 1
            }
        }
    }
}
