import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM ask a watching sync to stop once the step in progress is done, rather
/// than killing it mid-step (a sync writes atomically anyway; stopping in between is tidier
/// and says so). Installed for the watch only; the default handling returns afterwards.
final class StopSignals: Sendable {
    private static let signals = [SIGINT, SIGTERM]
    private let sources = Mutex<[DispatchSourceBox<any DispatchSourceSignal>]>([])

    /// Starts catching the signals; `onStop` runs (on a dispatch queue) for each one received.
    init(onStop: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "notes.watch.signals")
        var made: [DispatchSourceBox<any DispatchSourceSignal>] = []
        for number in Self.signals {
            signal(number, SIG_IGN)  // delivered to the dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: onStop)
            source.activate()
            made.append(DispatchSourceBox(source: source))
        }
        sources.withLock { $0 = made }
    }

    /// Stops catching them: the next one ends the process as usual.
    func cancel() {
        sources.withLock { sources in
            sources.forEach { $0.source.cancel() }
            sources = []
        }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
