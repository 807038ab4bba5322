import CSodium
import Synchronization

/// Random 64-bit words from the system's secure source, taken 64 at a time: one system call
/// (`getrandom`, through libsodium) per 64 words instead of one per word, for callers that need
/// many (a fresh note id each; an upload of 10,000 new notes made 10,000 `getrandom` calls).
/// Each word is handed out once and forgotten.
enum RandomWords {
    private struct Pool {
        var words = [UInt64](repeating: 0, count: 64)
        var next = 64
    }

    private static let pool = Mutex(Pool())

    static func next() -> UInt64 {
        pool.withLock { pool in
            if pool.next == pool.words.count {
                Sodium.requireReady()
                pool.words.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
                pool.next = 0
            }
            defer {
                pool.words[pool.next] = 0
                pool.next += 1
            }
            return pool.words[pool.next]
        }
    }
}
