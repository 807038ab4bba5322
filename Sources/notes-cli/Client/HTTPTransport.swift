import Foundation
import NotesCore

/// One HTTP request as the client sends it, free of Foundation's reference types.
struct HTTPRequest: Sendable {
    var method: String
    var url: URL
    var headers: [String: String] = [:]
    var body: Data?
    /// A body sent from a range of an open file instead of `body`, read as it is sent.
    var bodyFile: FileBody?
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
/// one network buffer of memory rather than being held whole: the transport waits while the
/// sink writes, so a sink slower than the network slows the socket down (`CurlBodySink`).
typealias ResponseBodySink = CurlBodySink

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

/// How long one request may take: the idle timeout (nothing sent or received for that long) and the
/// overall deadline (the whole answer, however steadily it trickles in).
///
/// Enforced by `CurlClient` on its transfer thread, to the millisecond.
/// `NOTES_TEST_REQUEST_TIMEOUTS=IDLE,DEADLINE` (seconds, fractions allowed) shortens both: it
/// exists for the test suite only, so that hang tests finish in seconds.
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

/// The process's one HTTP transport: `CurlClient` (libcurl), whose connections every
/// command's requests share and reuse.
///
/// The only transport: tests that need a misbehaving server run a real one on a loopback socket
/// (`ScriptedHTTPServer`), so what they exercise is this code and libcurl, never a stand-in.
/// An answer past its bound, a server that stalls or trickles, and a redirect are each stopped
/// while they happen rather than after the whole body has arrived.
///
/// TLS certificates are always verified, against the system's authorities or those
/// `CURL_CA_BUNDLE`, `SSL_CERT_FILE` or `SSL_CERT_DIR` name (`CurlTrust`), and requests go
/// through the proxy `https_proxy`, `http_proxy`, `all_proxy` and `no_proxy` name, as with curl.
struct CurlTransport: Sendable {
    /// Shared by the whole process, so its connections are reused by every request.
    static let shared = CurlTransport(environment: ProcessInfo.processInfo.environment)

    let timeouts: RequestTimeouts
    /// The client, or why libcurl could not be set up (reported by each request).
    private let client: Result<CurlClient, CurlFailure>

    init(environment: [String: String]) {
        timeouts = .from(environment: environment)
        let configuration = CurlClient.Configuration(userAgent: "notes/\(NotesVersion.current)",
                                                     trust: .from(environment: environment))
        client = Result { () throws(CurlFailure) in try CurlClient(configuration: configuration) }
    }

    /// Sends `request` and returns its answer, whatever the status.
    /// - Throws: `TransportError` when no usable answer came.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let what = "\(request.method) \(request.url.path)"
        var limits = timeouts
        if request.serverHold > .zero {
            limits.idle += request.serverHold
            limits.deadline += request.serverHold
        }
        let client: CurlClient
        switch self.client {
        case .success(let made): client = made
        case .failure(let failure): throw TransportError(kind: .other, description: "HTTP could not be set up: \(failure.detail)")
        }
        let body: CurlRequestBody? = request.bodyFile.map { .file(descriptor: $0.file.descriptor, offset: $0.offset, length: $0.length) }
            ?? request.body.map { .bytes($0) }
        let curlRequest = CurlRequest(method: request.method, url: request.url.absoluteString, headers: request.headers,
                                      body: body, maxResponseBytes: request.maxResponseBytes,
                                      idleTimeout: limits.idle, deadline: limits.deadline, sink: request.bodySink)
        let outcome = await client.perform(curlRequest)
        // The body's file stays open until the answer has come: libcurl reads it until then.
        withExtendedLifetime(request.bodyFile) {}
        switch outcome {
        case .success(let answer):
            return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        case .failure(let failure):
            throw Self.transportError(failure, request: request, what: what, limits: limits)
        }
    }

    /// `failure` in the client's words, naming the request.
    static func transportError(_ failure: CurlFailure, request: HTTPRequest, what: String,
                               limits: RequestTimeouts) -> TransportError {
        switch failure.kind {
        case .cannotResolve: TransportError(kind: .cannotConnect, description: "unknown host")
        case .cannotConnect: TransportError(kind: .cannotConnect, description: "connection refused")
        case .timedOut:
            TransportError(kind: .timedOut, description:
                "the server sent nothing for \(RequestTimeouts.text(limits.idle)) while answering \(what)")
        case .deadlineExceeded:
            TransportError(kind: .deadlineExceeded, description:
                "the server did not finish answering \(what) within \(RequestTimeouts.text(limits.deadline)); gave up")
        case .connectionLost: TransportError(kind: .connectionLost, description: "the connection was lost")
        case .closedWithoutAnswer:
            // The server died, or restarted, with the request in flight: a lost connection like any other.
            TransportError(kind: .connectionLost, description: "the server closed the connection without answering")
        case .redirected:
            TransportError(kind: .redirected, description:
                "the server answered \(what) with a redirect to \(Terminal.printable(redirectTarget(failure.detail, from: request.url))); "
                + "notes never follows redirects, so nothing was sent there (if the server moved, use its new address)")
        case .tooLarge:
            TransportError(kind: .tooLarge, description: "the server's answer to \(what) is larger than "
                           + "\(ResponseBudget.text(request.maxResponseBytes)), more than its published limits allow; stopped reading it")
        case .refusedBySink: TransportError(kind: .other, description: "the answer to \(what) was refused by its receiver")
        case .untrustedCertificate: TransportError(kind: .other, description: untrustedCertificate)
        case .tlsFailed: TransportError(kind: .other, description: tlsFailure)
        case .cancelled: TransportError(kind: .other, description: "\(what) was cancelled")
        case .other: TransportError(kind: .other, description: failure.detail)
        }
    }

    /// A redirect's `Location` made absolute against the request's URL.
    private static func redirectTarget(_ location: String, from url: URL) -> String {
        URL(string: location, relativeTo: url)?.absoluteString ?? location
    }

    private static let untrustedCertificate = "the server's TLS certificate is not trusted here (self-signed, expired, "
        + "from an unknown authority, or for another name; CURL_CA_BUNDLE names a file of authorities to trust)"

    /// A handshake that fails other than on the certificate is most often an https:// URL for
    /// a server that speaks plain HTTP on that port: OpenSSL then reads its `400` answer as a
    /// "wrong version number", or meets the closed connection, by timing.
    private static let tlsFailure = "the secure (TLS) connection could not be set up; is this server plain http?"
}
