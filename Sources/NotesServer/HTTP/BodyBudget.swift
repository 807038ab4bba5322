import Synchronization

/// One memory budget shared by every request body being received.
///
/// A body's bytes are reserved before they are read (the whole `Content-Length` up front, a
/// chunked body chunk by chunk) and released when its request completes, so the bodies in
/// flight never hold more than `limit` bytes together, however many connections send at once.
final class BodyBudget: Sendable {
    let limit: Int
    private let reserved = Mutex<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Reserves `bytes`; false (and nothing reserved) when that would pass the limit.
    func reserve(_ bytes: Int) -> Bool {
        reserved.withLock { reserved in
            guard bytes <= limit - reserved else { return false }
            reserved += bytes
            return true
        }
    }

    /// Gives back bytes reserved earlier.
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        reserved.withLock { $0 -= bytes }
    }

    /// Bytes reserved right now.
    var inUse: Int { reserved.withLock { $0 } }
}
