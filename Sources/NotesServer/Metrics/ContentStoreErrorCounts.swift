import Synchronization

/// The content store's failures since the process started, by kind, for the metrics: each
/// `BlobStoreError` counts itself when it is made, whichever store made it and whoever catches it.
///
/// Process-wide rather than per store: every server process has one content store, and its
/// errors arise in the store, its sinks and its staged contents alike.
enum ContentStoreErrorCounts {
    /// The disk or the user's file system quota was full (answered 507).
    static let full = Atomic<Int>(0)
    /// Another request held what this one needed (answered 503 with `Retry-After`).
    static let busy = Atomic<Int>(0)
    /// Any other failure of the store.
    static let failed = Atomic<Int>(0)

    static func count(_ error: BlobStoreError) {
        if error.isFull {
            full.add(1, ordering: .relaxed)
        } else if error.isBusy {
            busy.add(1, ordering: .relaxed)
        } else {
            failed.add(1, ordering: .relaxed)
        }
    }
}
