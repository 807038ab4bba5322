import Synchronization

/// Everything the server keeps about one request between libmicrohttpd's calls for it.
///
/// Created when libmicrohttpd has read the request line (the URI callback), stored retained in
/// `*con_cls`, released in the request-completed callback. `@unchecked Sendable` is sound because the plain `var`s are touched
/// only by the MHD thread that owns the connection (libmicrohttpd never runs two callbacks for one
/// connection at once, and a resumed connection returns to its own thread), while the one field a
/// `.later` task touches, `phase`, sits behind a `Mutex`.
final class RequestState: @unchecked Sendable {
    /// Where a `.later` request stands; decides who may resume the suspended connection.
    enum Phase {
        /// Not suspended (reading the body, or answered synchronously).
        case active
        /// Suspended in libmicrohttpd, waiting for async work.
        case suspended
        /// Work finished (or shutdown gave up on it); the connection was resumed to send this.
        case ready(HTTPResponse)
    }

    let id: String
    let connection: OpaquePointer
    let started: ContinuousClock.Instant
    /// Set on the first access-handler call, once the headers are in ("-" until then, for the log).
    var method = "-"
    var path = "-"
    /// Whether the access handler has seen this request's headers yet.
    var headersSeen = false
    /// The client's address, behind trusted proxies resolved from `X-Forwarded-For`.
    var remoteAddress = "unknown"
    /// Whether the request came over HTTPS (directly, or through a trusted proxy that says so).
    var isSecure = false
    /// An answer decided before the body was read (too many query parameters, a full body
    /// budget); the body is then drained and discarded, and this is the answer.
    var refusal: HTTPError?

    /// Body bytes received so far (never more than `bodyLimit`).
    var body: [UInt8] = []
    /// Where a streamed body goes instead of `body` (see `RequestBodySink`).
    var sink: (any RequestBodySink)?
    /// Bytes handed to `sink` so far.
    var sunkBytes = 0
    /// The largest body this request may send (the route's limit, within the server's).
    var bodyLimit = 0
    /// Bytes of the shared body budget this request holds; given back when it completes.
    var reservedBytes = 0
    /// Whether the body arrives chunked (so the budget is reserved chunk by chunk).
    var chunked = false
    /// The instant by which the whole body must have arrived; nil while none is expected.
    var bodyDeadline: ContinuousClock.Instant?
    /// Set when a body grew past the limit: further chunks are discarded and the answer is 413.
    var overflowed = false
    /// The status queued on the wire, for the log line; nil until a response is queued.
    var status: Int?
    /// The route whose answer was queued, for the metrics; nil until one is (or for none).
    var route: RouteSeries?
    /// Whether this request's body counts among the bodies in flight (`HTTPServer.bodiesInFlight`).
    var receivesBody = false

    private let phase = Mutex<Phase>(.active)

    /// - Parameter started: when the request began (tests pass an earlier instant).
    init(id: String, connection: OpaquePointer, started: ContinuousClock.Instant = .now) {
        self.id = id
        self.connection = connection
        self.started = started
    }

    /// Appends a body chunk unless that would pass `limit`, in which case the body is dropped.
    ///
    /// Dropping (rather than keeping the first `limit` bytes) frees the memory at once; the request
    /// can only be answered with 413 from here on.
    func append(_ chunk: UnsafeRawBufferPointer, limit: Int) {
        guard !overflowed, refusal == nil else { return }
        if body.count + chunk.count > limit {
            overflowed = true
            body = []
            return
        }
        body.append(contentsOf: chunk)
    }

    /// Drops the body received so far (the request is refused); the budget is given back by the caller.
    func discardBody(answering error: HTTPError) {
        refusal = error
        body = []
    }

    /// Records that the connection is now suspended; call right after `MHD_suspend_connection`.
    func markSuspended() {
        phase.withLock { $0 = .suspended }
    }

    /// Stores `response` if the connection is still suspended; true means the caller must resume it.
    ///
    /// Exactly one party wins: the finished `.later` work or a shutdown that stopped waiting.
    /// The loser must not touch the connection, which may be gone by then.
    func claimResume(with response: HTTPResponse) -> Bool {
        phase.withLock { phase in
            guard case .suspended = phase else { return false }
            phase = .ready(response)
            return true
        }
    }

    /// The response stored for a resumed connection, taken once.
    func takeReadyResponse() -> HTTPResponse? {
        phase.withLock { phase in
            guard case .ready(let response) = phase else { return nil }
            phase = .active
            return response
        }
    }

    /// The request's log line: `req=ID METHOD PATH STATUS 0.41ms` (the path as `LogText.loggedPath`
    /// shows it). Written byte by byte into one string sized up front: it is built for every
    /// request, and appending piece by piece (with a `String` for each number) cost about as
    /// much as routing the request.
    func logLine(status: Int) -> String {
        let path = LogText.loggedPath(self.path)
        let elapsed = ContinuousClock.now - started
        let (seconds, attoseconds) = elapsed.components
        // Hundredths of a millisecond.
        let hundredths = max(0, Int(seconds) * 100_000 + Int(attoseconds / 10_000_000_000_000))
        // Two numbers of at most 20 digits (and a sign), the fixed text and the three strings.
        let capacity = 4 + id.utf8.count + 1 + method.utf8.count + 1 + path.utf8.count + 1 + 21 + 1 + 21 + 1 + 2 + 2
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func put(_ text: String) {
                var text = text
                text.withUTF8 { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + count).initialize(from: source, count: bytes.count)
                    count += bytes.count
                }
            }
            func put(decimal value: Int, atLeast digits: Int = 1) {
                if value < 0 { put(UInt8(ascii: "-")) }
                var magnitude = value.magnitude, divisor: UInt = 1, width = 1
                while magnitude / divisor >= 10 || width < digits {
                    divisor *= 10
                    width += 1
                }
                while divisor > 0 {
                    put(UInt8(ascii: "0") + UInt8(magnitude / divisor))
                    magnitude %= divisor
                    divisor /= 10
                }
            }
            put("req=")
            put(id)
            put(UInt8(ascii: " "))
            put(method)
            put(UInt8(ascii: " "))
            put(path)
            put(UInt8(ascii: " "))
            put(decimal: status)
            put(UInt8(ascii: " "))
            put(decimal: hundredths / 100)
            put(UInt8(ascii: "."))
            put(decimal: hundredths % 100, atLeast: 2)
            put("ms")
            return count
        }
    }
}
