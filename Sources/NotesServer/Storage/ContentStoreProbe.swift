import Foundation
import Synchronization

/// Whether the content store answers, as `/healthz` reports it: asked of the store at most once
/// every `intervalSeconds` whatever the rate of health checks, so a flood of them never becomes
/// a flood of requests to the store, and a check never waits on the store longer than one probe.
final class ContentStoreProbe: Sendable {
    private struct Last {
        var at: ContinuousClock.Instant?
        var reachable = true
        var probing = false
    }

    private let probe: @Sendable () -> Bool
    private let intervalSeconds: Int
    private let last = Mutex(Last())

    /// - Parameter probe: asks the store; true when it answered.
    init(intervalSeconds: Int = 5, probe: @escaping @Sendable () -> Bool) {
        self.intervalSeconds = intervalSeconds
        self.probe = probe
    }

    /// The probe for `blobs`: an S3 store is asked; a store beside the database is reachable
    /// whenever the database is (nil).
    static func of(_ blobs: any BlobStore) -> ContentStoreProbe? {
        if let switching = blobs as? SwitchingBlobStore {
            // The store the database records may change while the server runs: ask the one in use.
            guard switching.current is S3BlobStore else { return nil }
            return ContentStoreProbe { (switching.current as? S3BlobStore).map { (try? $0.probe()) != nil } ?? true }
        }
        guard let s3 = blobs as? S3BlobStore else { return nil }
        return ContentStoreProbe { (try? s3.probe()) != nil }
    }

    /// The last known answer, refreshed first when it is older than the interval (one caller
    /// refreshes; the others meanwhile get the last known answer).
    var isReachable: Bool {
        let now = ContinuousClock.now
        let shouldProbe = last.withLock { last -> Bool in
            guard !last.probing else { return false }
            if let at = last.at, now - at < .seconds(intervalSeconds) { return false }
            last.probing = true
            return true
        }
        guard shouldProbe else { return last.withLock { $0.reachable } }
        let reachable = probe()
        last.withLock { $0 = Last(at: ContinuousClock.now, reachable: reachable, probing: false) }
        return reachable
    }
}
