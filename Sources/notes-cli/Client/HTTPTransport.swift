import Foundation
import NotesCore
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as the client sends it, free of Foundation's reference types.
struct HTTPRequest: Sendable {
    var method: String
    var url: URL
    var headers: [String: String] = [:]
    var body: Data?
    /// The largest answer body accepted; beyond it the transfer is stopped (`TransportError.tooLarge`).
    var maxResponseBytes = ResponseBudget.defaultMaxBytes
    /// How long the server may hold the answer by design (a long poll's `wait`): added to the
    /// idle timeout and the deadline, so a quiet wait is not taken for a dead server.
    var serverHold: Duration = .zero
    /// Where a successful (2xx) answer's body goes as it arrives, instead of into
    /// `HTTPResponse.body` (a download written straight to disk); nil: buffered as usual.
    var bodySink: (any ResponseBodySink)?
}

/// Takes a successful answer's body as it arrives, so a download of any size passes through
/// a few network buffers of memory rather than being held whole.
///
/// Called on the transport's delegate queue, one call at a time and in order, and never after
/// the caller has the outcome. Returning false stops the transfer (the sink keeps its own
/// reason, for the caller to report).
///
/// URLSession on Linux queues every buffer it receives (16 KiB each) for the delegate without
/// ever pausing the socket, so a sink slower than the network falls behind without bound:
/// callers bound a streamed answer by asking for a range of bounded length (measured: a 1 GiB
/// answer streamed whole peaked at 300 MiB of client memory on a busy machine).
protocol ResponseBodySink: AnyObject, Sendable {
    /// Whether to take the body of a 2xx answer with `status` and `headers` (names lowercased).
    func begin(status: Int, headers: [String: String]) -> Bool
    /// Takes the next bytes of the body.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// One HTTP answer: status, headers (names lowercased), body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    /// The header `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request got no usable HTTP answer.
struct TransportError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        /// Nothing reached the server (refused, no route, DNS): always safe to retry.
        case cannotConnect
        /// The request may or may not have reached the server; nothing arrived for the idle timeout.
        case timedOut
        case connectionLost
        case other
        /// The answer did not finish within the per-request deadline (a server trickling bytes).
        /// Not retried: the same server would hold the next attempt as long.
        case deadlineExceeded
        /// The answer was a redirect; it is never followed (the token must not go elsewhere).
        case redirected
        /// The answer body grew past `HTTPRequest.maxResponseBytes`; reading stopped there.
        case tooLarge
    }

    var kind: Kind
    var description: String
}

/// How long one request may take: the idle timeout (nothing received for that long) and the
/// overall deadline (the whole answer, however steadily it trickles in).
///
/// Enforced by the transport's own watchdog rather than URLSession's timeouts, whose
/// `timeoutIntervalForResource` (300 s) is far too patient and whose fractional seconds are
/// truncated on Linux. `NOTES_TEST_REQUEST_TIMEOUTS=IDLE,DEADLINE` (seconds, fractions allowed)
/// shortens both: it exists for the test suite only, so that hang tests finish in seconds.
struct RequestTimeouts: Sendable, Equatable {
    var idle: Duration = .seconds(30)
    var deadline: Duration = .seconds(120)

    static let standard = RequestTimeouts()

    /// The standard timeouts, or the test override from `environment`.
    static func from(environment: [String: String]) -> RequestTimeouts {
        guard let text = environment["NOTES_TEST_REQUEST_TIMEOUTS"] else { return .standard }
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0.isFinite }) else { return .standard }
        return RequestTimeouts(idle: .milliseconds(Int(parts[0] * 1000)), deadline: .milliseconds(Int(parts[1] * 1000)))
    }

    /// "30 s", "1.5 s": for messages.
    static func text(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

/// The process's one URLSession (keep-alive reuses its connections across all commands' requests).
///
/// The only transport: tests that need a misbehaving server run a real one on a loopback socket
/// (`ScriptedHTTPServer`), so what they exercise is this code and URLSession, never a stand-in.
/// The answer is streamed through a session delegate, so that a body past its bound, a server
/// that stalls or trickles, and a redirect are each stopped while they happen rather than after
/// the whole body has been buffered.
struct URLSessionTransport: Sendable {
    /// Shared by the whole process, as URLSession is meant to be.
    static let shared = URLSessionTransport(timeouts: .from(environment: ProcessInfo.processInfo.environment))

    /// The sessions requests go through.
    private let lanes: Lanes
    let timeouts: RequestTimeouts
    /// Stops requests past their timeouts (one task for all requests in flight).
    private let watchdog = TransferWatchdog()

    /// How many sessions streamed answers are spread over.
    static let streamingLaneCount = 2

    /// One URLSession with its delegate (each session with its own queues).
    private struct Lane: Sendable {
        let session: URLSession
        let delegate: TransferDelegate
    }

    /// Buffered answers go through the first session. Streamed answers (`HTTPRequest.bodySink`)
    /// take turns on `streamingLaneCount` sessions: one session moves every byte of its answers
    /// on one serial queue (libcurl's work queue, then the delegate queue, with a hand-over and
    /// a timer reset per 16 KiB delivery), so one core bounds it; two downloads in flight
    /// (`ContentDownload`) on two sessions use two cores.
    private final class Lanes: Sendable {
        let all: [Lane]
        private let next = Atomic<Int>(0)

        init(_ all: [Lane]) { self.all = all }

        func lane(streaming: Bool) -> Lane {
            streaming ? all[Int(next.add(1, ordering: .relaxed).oldValue.magnitude % UInt(all.count))] : all[0]
        }
    }

    private init(timeouts: RequestTimeouts) {
        self.timeouts = timeouts
        lanes = Lanes((0..<Self.streamingLaneCount).map { _ in Self.lane(timeouts: timeouts) })
    }

    private static func lane(timeouts: RequestTimeouts) -> Lane {
        let configuration = URLSessionConfiguration.ephemeral
        // Backstops only, beyond our own watchdog, which enforces both timeouts (whole seconds:
        // fractions are truncated).
        let backstop = TimeInterval(timeouts.deadline.components.seconds + 5)
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        // Never accepted: FoundationNetworking otherwise splits, trims and parses every header
        // line of every answer for cookies (about 2% of an upload's client CPU), which the API
        // never sets, and looks cookies up for every request.
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.httpAdditionalHeaders = ["User-Agent": "notes/\(NotesVersion.current)"]
        let delegate = TransferDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return Lane(session: URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue), delegate: delegate)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        // All at once: FoundationNetworking's `setValue(_:forHTTPHeaderField:)` rebuilds the
        // request's header table on every call (about 20,000 instructions each, three a batch).
        if !request.headers.isEmpty { urlRequest.allHTTPHeaderFields = request.headers }
        let what = "\(request.method) \(request.url.path)"
        var limits = self.timeouts
        if request.serverHold > .zero {
            limits.idle += request.serverHold
            limits.deadline += request.serverHold
            urlRequest.timeoutInterval = TimeInterval(limits.deadline.components.seconds + 5)
        }
        let lane = lanes.lane(streaming: request.bodySink != nil)
        let delegate = lane.delegate
        let task = lane.session.dataTask(with: urlRequest)
        let transfer = Transfer(what: what, maxBytes: request.maxResponseBytes, sink: request.bodySink)
        let watched = watchdog.watch(transfer, task: task, timeouts: limits, what: what)
        defer { watchdog.stopWatching(watched) }
        let outcome: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(continuation)
                delegate.register(transfer, for: task)
                task.resume()
            }
        } onCancel: {
            // The caller gets its answer at once rather than when URLSession reports the
            // cancelled task: with the body still streaming, that took until the idle timeout
            // (seen: the other range of a download refused midway).
            transfer.fail(TransportError(kind: .other, description: "\(what) was cancelled"))
            task.cancel()
        }
        return try outcome.get()
    }

    fileprivate static func transportError(_ error: URLError) -> TransportError {
        switch error.code {
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            TransportError(kind: .cannotConnect, description: reason(error))
        case .timedOut:
            TransportError(kind: .timedOut, description: "the request timed out")
        case .networkConnectionLost:
            TransportError(kind: .connectionLost, description: "the connection was lost")
        case .badServerResponse:
            // libcurl's "empty reply": the server closed the connection without answering (it
            // died, or restarted, with the request in flight). A lost connection like any other.
            TransportError(kind: .connectionLost, description: "the server closed the connection without answering")
        default:
            TransportError(kind: .other, description: reason(error))
        }
    }

    private static func reason(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .notConnectedToInternet: "no network"
        case .secureConnectionFailed: tlsFailure
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            untrustedCertificate
        default: tlsFailureText(error) ?? error.localizedDescription
        }
    }

    private static let untrustedCertificate = "the server's TLS certificate is not trusted here (self-signed, expired, "
        + "from an unknown authority, or for another name)"

    /// A TLS failure in plain words. FoundationNetworking passes libcurl's TLS errors on as
    /// `.unknown`, with OpenSSL's text (`OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong
    /// version number`) as the only sign: nil when the text is not one of those.
    private static func tlsFailureText(_ error: URLError) -> String? {
        guard error.code == .unknown else { return nil }
        let text = error.localizedDescription
        guard text.hasPrefix("OpenSSL/") || text.contains("SSL") else { return nil }
        return text.contains("certificate") ? untrustedCertificate : tlsFailure
    }

    /// A handshake that fails other than on the certificate is most often an https:// URL for
    /// a server that speaks plain HTTP on that port: OpenSSL then reads its `400` answer as a
    /// "wrong version number", or meets the closed connection (`SSL_ERROR_SYSCALL`), by timing.
    private static let tlsFailure = "the secure (TLS) connection could not be set up; is this server plain http?"
}

/// One request in flight: the body received so far, when bytes last arrived, and the one
/// continuation that gets the outcome (exactly once, whoever finishes first).
final class Transfer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?
        var failure: TransportError?
        var response: HTTPURLResponse?
        var body = Data()
        var lastActivity = ContinuousClock.now
        var finished = false
        var cancelRequested = false
        /// Whether the body goes to `sink` (a 2xx answer the sink accepted).
        var streaming = false
        /// Bytes handed to `sink` so far.
        var streamed = 0
    }

    let what: String
    let maxBytes: Int
    let sink: (any ResponseBodySink)?
    private let state = Mutex(State())

    init(what: String, maxBytes: Int, sink: (any ResponseBodySink)? = nil) {
        self.what = what
        self.maxBytes = maxBytes
        self.sink = sink
    }

    func start(_ continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) {
        let failure = state.withLock { state -> TransportError? in
            guard !state.finished else { return state.failure }
            state.continuation = continuation
            return nil
        }
        if let failure { continuation.resume(returning: .failure(failure)) }
    }

    /// When bytes last arrived; nil once the transfer is over.
    var lastActivity: ContinuousClock.Instant? {
        state.withLock { $0.finished ? nil : $0.lastActivity }
    }

    /// Stops the transfer for `error` (the first reason wins) and hands that to the caller at
    /// once, rather than when URLSession gets round to reporting the cancelled task: the caller
    /// never waits on URLSession's cancellation, which can stall on Linux.
    func fail(_ error: TransportError) {
        stop { state in if state.failure == nil { state.failure = error } }
    }

    /// Runs `record` and, if it left a failure, finishes the transfer with it (once).
    private func stop(_ record: (inout State) -> Void) {
        let handOver = state.withLock { state -> (CheckedContinuation<Result<HTTPResponse, TransportError>, Never>, TransportError)? in
            record(&state)
            guard let failure = state.failure, let continuation = state.continuation else { return nil }
            state.finished = true
            state.continuation = nil
            state.body = Data()
            return (continuation, failure)
        }
        if let (continuation, failure) = handOver { continuation.resume(returning: .failure(failure)) }
    }

    func tooLarge() -> TransportError {
        TransportError(kind: .tooLarge, description: "the server's answer to \(what) is larger than "
                       + "\(ResponseBudget.text(maxBytes)), more than its published limits allow; stopped reading it")
    }

    /// Whether to go on: false when the announced length is already past the bound, or the
    /// sink refused the answer.
    func received(_ response: HTTPURLResponse) -> Bool {
        var goOn = true
        stop { state in
            state.response = response
            state.lastActivity = .now
            if response.expectedContentLength > Int64(maxBytes) {
                if state.failure == nil { state.failure = tooLarge() }
                goOn = false
            } else if let sink, (200..<300).contains(response.statusCode), state.failure == nil {
                state.streaming = sink.begin(status: response.statusCode, headers: Self.headers(of: response))
                if !state.streaming {
                    state.failure = stoppedBySink()
                    goOn = false
                }
            }
        }
        return goOn
    }

    private func stoppedBySink() -> TransportError {
        TransportError(kind: .other, description: "the answer to \(what) was refused by its receiver")
    }

    /// True the first time only: whoever stops the transfer cancels its task once.
    func claimCancel() -> Bool {
        state.withLock { state in
            defer { state.cancelRequested = true }
            return !state.cancelRequested
        }
    }

    /// Appends `data` (or hands it to the sink); false once the body is past the bound or the
    /// sink refused it (the caller cancels). A streamed write happens under the lock, so
    /// nothing reaches the sink once the caller has been given the outcome.
    func received(_ data: Data) -> Bool {
        var goOn = true
        stop { state in
            state.lastActivity = .now
            guard state.failure == nil else { goOn = false; return }
            let count = state.streaming ? state.streamed : state.body.count
            guard count + data.count <= maxBytes else {
                state.failure = tooLarge()
                state.body = Data()
                goOn = false
                return
            }
            if state.streaming, let sink {
                state.streamed += data.count
                if !data.withUnsafeBytes({ sink.write($0) }) {
                    state.failure = stoppedBySink()
                    goOn = false
                }
            } else {
                state.body.append(data)
            }
        }
        return goOn
    }

    /// Hands the outcome to the waiting caller (once).
    func complete(_ error: (any Error)?) {
        let (continuation, outcome) = state.withLock { state -> (CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?, Result<HTTPResponse, TransportError>) in
            state.finished = true
            defer { state.continuation = nil; state.body = Data() }
            return (state.continuation, Self.outcome(state, error))
        }
        continuation?.resume(returning: outcome)
    }

    private static func outcome(_ state: State, _ error: (any Error)?) -> Result<HTTPResponse, TransportError> {
        if let failure = state.failure { return .failure(failure) }
        if let error = error as? URLError { return .failure(URLSessionTransport.transportError(error)) }
        if let error { return .failure(TransportError(kind: .other, description: "\(error)")) }
        guard let http = state.response else {
            return .failure(TransportError(kind: .other, description: "the answer was not HTTP"))
        }
        return .success(HTTPResponse(status: http.statusCode, headers: headers(of: http), body: state.body))
    }

    /// The answer's headers, names lowercased.
    static func headers(of http: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return headers
    }
}

/// The session's delegate: routes each task's callbacks to its `Transfer`.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Mutex<[Int: Transfer]>([:])

    func register(_ transfer: Transfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(_ task: URLSessionTask) -> Transfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    /// Never follows a redirect, to the same origin or another: the request carries the bearer
    /// token, and the API never redirects, so a redirect means a misconfigured or hostile server.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        if let transfer = transfer(task) {
            let target = request.url?.absoluteString ?? response.value(forHTTPHeaderField: "Location") ?? "another address"
            transfer.fail(TransportError(kind: .redirected, description:
                "the server answered \(transfer.what) with a redirect to \(Terminal.printable(target)); "
                + "notes never follows redirects, so nothing was sent there (if the server moved, use its new address)"))
        }
        // nil: the 3xx answer itself completes the task, and the failure recorded above is reported.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        completionHandler(transfer.received(http) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask) else { return }
        guard !transfer.received(data), transfer.claimCancel() else { return }
        // Never cancel on the delegate queue: `cancel()` waits for the session's work queue,
        // which may be waiting on this queue while a server floods it (seen: a clone hung until
        // killed). The caller already has its answer (`Transfer.stop`); this only frees the socket.
        DispatchQueue.global().async { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(error)
    }
}
