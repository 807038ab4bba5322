#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT for a server that must drain before it exits.
///
/// `block()` runs before any thread exists, so every thread the server starts (libmicrohttpd's,
/// Dispatch's, the password pool's) inherits the block, and `wait()` on the main thread is the
/// only place the signals are ever taken. An ignore-and-observe scheme (SIG_IGN plus a
/// Dispatch signal source) loses signals now and then on Linux: a thread with the signal
/// unblocked can be chosen to take it, and then it is simply discarded.
enum TerminationSignals {
    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    /// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts from now on.
    static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until SIGTERM or SIGINT arrives and returns which.
    static func wait() -> Int32 {
        var signals = set
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }
}
