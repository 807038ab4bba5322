import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Absolute deadlines for receiving requests, which trickling bytes cannot extend.
///
/// libmicrohttpd's own timeout counts inactivity only: a client sending a byte a second keeps a
/// connection forever. So every open connection is registered here with the instant by which
/// its current request must have arrived in full; a sweep (`sweep(now:)`, run every second)
/// shuts down the socket of any connection past it. While the server works on a request or
/// sends its answer there is no deadline (a slow reader is bounded by the inactivity timeout).
///
/// Shutting down a socket from another thread is safe only while libmicrohttpd has not closed
/// it (the number could be reused). libmicrohttpd reports a connection as closed before it
/// closes the socket, and both that report (`closed`) and the sweep hold `entries`' lock, so the
/// sweep never touches a socket number after its connection was reported closed.
final class ConnectionDeadlines: Sendable {
    private struct Entry {
        let socket: Int32
        var deadline: ContinuousClock.Instant?
        var cut = false
    }

    private let entries = Mutex<[UInt: Entry]>([:])

    /// Registers a new connection, which must send its first request's headers by `deadline`.
    func opened(_ connection: OpaquePointer, socket: Int32, deadline: ContinuousClock.Instant) {
        guard socket >= 0 else { return }
        entries.withLock { $0[Self.key(connection)] = Entry(socket: socket, deadline: deadline) }
    }

    /// Forgets a connection; called by libmicrohttpd before it closes the socket.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Sets (or clears, with nil) the instant by which the connection's current request must be in.
    func setDeadline(_ connection: OpaquePointer, _ deadline: ContinuousClock.Instant?) {
        // One lookup: a connection already forgotten is left forgotten.
        entries.withLock { $0[Self.key(connection)]?.deadline = deadline }
    }

    /// Shuts down every connection past its deadline; returns how many were cut this time.
    ///
    /// `shutdown(2)` rather than `close(2)`: libmicrohttpd still owns the descriptor; it sees the
    /// end of the stream, closes the connection itself and reports it closed.
    @discardableResult
    func sweep(now: ContinuousClock.Instant) -> Int {
        entries.withLock { entries in
            var cut = 0
            for (key, entry) in entries where !entry.cut {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                _ = shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[key]?.cut = true
                cut += 1
            }
            return cut
        }
    }

    /// How many connections are open (for tests and diagnostics).
    var count: Int { entries.withLock { $0.count } }

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }
}
