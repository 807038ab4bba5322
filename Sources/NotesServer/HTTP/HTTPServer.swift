import Dispatch
import Synchronization

/// The HTTP/1.1 server: libmicrohttpd owns sockets, parsing and framing; this type owns the daemon.
///
/// Lifecycle: `init` → `start()` (binds, returns the real port) → `shutdown()` (drains, stops).
/// A server starts at most once. Requests reach the `HTTPResponder` on libmicrohttpd's threads
/// once the body has been read in full; see `HTTPServer+Handling.swift`.
///
/// The class is plain (checked) `Sendable`: every stored property is immutable or behind a
/// `Mutex`/`Atomic`, and the raw daemon pointer lives in `DaemonHandle`, whose comment says why
/// sharing it is sound. The daemon keeps the server alive through an `Unmanaged` retain taken at
/// start and released after `MHD_stop_daemon`, because C callbacks cannot hold Swift references.
final class HTTPServer: Sendable {
    /// How the server listens and which limits it enforces.
    struct Configuration: Sendable {
        /// IPv4 or IPv6 literal (`::1`, optionally bracketed); `localhost` means `127.0.0.1`.
        var host: String = "127.0.0.1"
        /// 0 asks the kernel for a free port; `start()` returns the one bound.
        var port: UInt16 = 8080
        /// Connections served at once; further ones wait in the kernel backlog.
        var connectionLimit: Int = 1024
        /// Connections one client address may hold at once; more are closed as soon as they are
        /// accepted (0: no limit; `serve` sets one). The address is the TCP peer: behind a
        /// proxy, the proxy's, since it is decided before any header is read.
        var perAddressConnectionLimit: Int = 0
        /// Seconds of inactivity after which a connection is closed (0: never).
        var connectionTimeoutSeconds: Int = 30
        /// Seconds a connection has to send a request's headers, counted from its opening or
        /// from the previous answer; trickling bytes does not extend it (0: no deadline).
        var requestHeaderTimeoutSeconds: Int = 30
        /// The slowest upload rate allowed: a body must arrive within the header timeout plus
        /// its length at this rate, counted from when its headers arrived.
        var minimumUploadBytesPerSecond: Int = 64 * 1024
        /// Bytes all request bodies being received may hold together; beyond it, 503 `server_busy`.
        var bodyBudgetBytes: Int = 64 * 1024 * 1024
        /// Query parameters read per request; a URL with more gets 414 (libmicrohttpd would
        /// otherwise run out of per-connection memory and drop the request without an answer).
        var maxQueryParameters: Int = 256
        /// Reverse proxies whose `X-Forwarded-For` is believed (see `ClientAddress`).
        var trustedProxies: [AddressRange] = []
        /// The most bytes a request's header fields may take (names, values and their framing);
        /// beyond it, 431 with the JSON error body. Kept well below `connectionMemoryLimit`, so
        /// that a request over it still fits in libmicrohttpd's pool and reaches the handler.
        var maxHeaderBytes: Int = 16 * 1024
        /// Per-connection memory pool: it holds the request line and headers while they are
        /// read. Headers that do not fit get libmicrohttpd's own 431, an HTML page. Measured with
        /// 0.9.75 at 64 KiB: one header of up to 64 KB fits, or about 560 short ones (28 KB, each
        /// costing its own bookkeeping); both far past `maxHeaderBytes`, so the JSON 431 covers
        /// every oversized request short of those, and the bound per connection stays as it was.
        var connectionMemoryLimit: Int = 64 * 1024
        /// Largest request body accepted; larger ones get 413 before (or instead of) being read.
        var maxBodyBytes: Int = 8 * 1024 * 1024
        /// 1: one internal epoll thread; more: a pool of that many epoll threads.
        var threadCount: Int = 1
        /// PEM certificate chain; with `tlsKeyPEM` enables HTTPS (needs libmicrohttpd with GnuTLS).
        var tlsCertificatePEM: String? = nil
        /// PEM private key matching `tlsCertificatePEM`.
        var tlsKeyPEM: String? = nil
        /// How long `shutdown()` lets in-flight requests finish before answering the rest with 503.
        var drainTimeoutSeconds: Double = 10

        init() {}
    }

    /// Where the server stands; the daemon handle exists only while running.
    enum Lifecycle: Sendable {
        case idle
        case starting
        case running(DaemonHandle)
        case stopping
        case stopped
    }

    /// The suspended requests, and whether shutdown still lets requests suspend.
    struct Activity: Sendable {
        var suspended: [ObjectIdentifier: RequestState] = [:]
        /// Set by shutdown once it stops waiting: no connection may be suspended after this.
        var closing = false
    }

    let configuration: Configuration
    let responder: any HTTPResponder
    let log: @Sendable (String) -> Void
    /// Told of every completed request (the metrics); nil: nobody.
    let observer: (any RequestObserver)?
    let lifecycle = Mutex<Lifecycle>(.idle)
    /// Every open connection's deadline for its current request.
    let deadlines = ConnectionDeadlines()
    /// Memory all request bodies in flight may hold together.
    let bodyBudget: BodyBudget
    let activity = Mutex<Activity>(Activity())
    /// Requests between their request line and completion. An atomic rather than a field of
    /// `activity`: every request counts itself in and out, and only shutdown reads it.
    let inFlight = Atomic<Int>(0)
    /// Requests whose body is being received (admitted, not yet complete), for the metrics.
    let bodiesInFlight = Atomic<Int>(0)
    /// Connections accepted since start: how well clients reuse theirs (tests read it).
    let acceptedConnections = Atomic<Int>(0)
    /// True once shutdown began: responses then carry `Connection: close` so keep-alive clients leave.
    let draining = Atomic<Bool>(false)

    /// Creates a server; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, limits and optional TLS.
    ///   - responder: answers every request that passes the HTTP-level checks.
    ///   - log: receives one line per completed request (never query strings, headers or bodies).
    ///   - observer: told of every completed request, for the metrics.
    init(configuration: Configuration, responder: any HTTPResponder, log: @escaping @Sendable (String) -> Void,
         observer: (any RequestObserver)? = nil) {
        self.configuration = configuration
        self.responder = responder
        self.log = log
        self.observer = observer
        self.bodyBudget = BodyBudget(limit: configuration.bodyBudgetBytes)
    }
}

/// The running daemon and what must be released after it stops.
///
/// `@unchecked Sendable` is sound because the pointers are only ever passed to libmicrohttpd
/// functions that are documented thread-safe for a daemon with internal threads (quiesce, stop,
/// resume), and `secrets` are freed only after `MHD_stop_daemon` returned.
struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
    let context: Unmanaged<HTTPServer>
    /// `strdup`ed TLS PEM strings; libmicrohttpd keeps pointers to them, so they live until stop.
    let secrets: [UnsafeMutablePointer<CChar>]
    let port: UInt16
    /// Runs the deadline sweep every second while the daemon runs; cancelled before it stops.
    let sweeper: any DispatchSourceTimer
}
