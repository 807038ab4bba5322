import CCurl
import Foundation

/// HTTP/1.1 over libcurl: the one owner of every libcurl handle in the process it runs in.
///
/// Its transfers run on one multi handle (`CurlMulti`), so connections are kept alive and reused
/// across requests and many requests run at once on one thread. Every request is bounded in size
/// (`CurlRequest.maxResponseBytes`) and time (its idle timeout and deadline), follows no redirect,
/// speaks only `http` and `https`, verifies TLS certificates and host names always (against
/// `CurlTrust`), and goes through the proxy libcurl's environment variables name (`http_proxy`,
/// `https_proxy`, `all_proxy`, `no_proxy`, as with the `curl` program).
public final class CurlClient: Sendable {
    /// What every request of this client shares.
    public struct Configuration: Sendable {
        /// The `User-Agent` sent with each request.
        public var userAgent: String
        public var trust: CurlTrust

        public init(userAgent: String, trust: CurlTrust = .system) {
            self.userAgent = userAgent
            self.trust = trust
        }
    }

    public let configuration: Configuration
    let multi: CurlMulti

    /// How many bytes libcurl reads from a socket (or hands a read callback) at a time: fewer
    /// callbacks than its 16 KiB default for large bodies.
    static let receiveBufferBytes = 256 * 1024
    static let sendBufferBytes = 512 * 1024

    /// - Throws: `CurlFailure` when libcurl cannot be set up (out of memory).
    public init(configuration: Configuration) throws(CurlFailure) {
        self.configuration = configuration
        multi = try CurlMulti()
    }

    deinit {
        multi.stop()
    }

    /// Sends `request` and returns its answer, whatever the status, or why there is none.
    ///
    /// Cancelling the calling task returns `.cancelled` at once; the transfer is dropped behind it.
    public func perform(_ request: CurlRequest) async -> Result<CurlResponse, CurlFailure> {
        let transfer: CurlTransfer
        do {
            transfer = try makeTransfer(for: request)
        } catch {
            return .failure(error)
        }
        let multi = self.multi
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if transfer.start(continuation) { multi.add(transfer) }
            }
        } onCancel: {
            transfer.fail(CurlFailure(kind: .cancelled))
            multi.cancel(transfer)
        }
    }

    /// A transfer of `request` on a new easy handle, set up and not yet started.
    func makeTransfer(for request: CurlRequest) throws(CurlFailure) -> CurlTransfer {
        let easy = try CurlEasy()
        let transfer = CurlTransfer(request: request, easy: easy)
        try configure(easy, for: request, transfer: transfer)
        return transfer
    }

    private func configure(_ easy: CurlEasy, for request: CurlRequest, transfer: CurlTransfer) throws(CurlFailure) {
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try easy.set(CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
        try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let file = configuration.trust.authorityFile { try easy.set(CURLOPT_CAINFO, file) }
        if let directory = configuration.trust.authorityDirectory { try easy.set(CURLOPT_CAPATH, directory) }

        let user = Unmanaged.passUnretained(transfer).toOpaque()
        try easy.set(CURLOPT_HEADERFUNCTION, callback: CurlCallbacks.header)
        try easy.set(CURLOPT_HEADERDATA, pointer: user)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: CurlCallbacks.write)
        try easy.set(CURLOPT_WRITEDATA, pointer: user)

        switch request.method {
        case "GET": try easy.set(CURLOPT_HTTPGET, 1)
        case "HEAD": try easy.set(CURLOPT_NOBODY, 1)
        default: try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        let body = request.body ?? (Self.sendsBody(request.method) ? .bytes(Data()) : nil)
        if let body {
            try easy.set(CURLOPT_UPLOAD, 1)
            try easy.set(CURLOPT_UPLOAD_BUFFERSIZE, Self.sendBufferBytes)
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: body.count)
            try easy.set(CURLOPT_READFUNCTION, callback: CurlCallbacks.read)
            try easy.set(CURLOPT_READDATA, pointer: user)
            try easy.setSeek(CurlCallbacks.seek)
            try easy.set(CURLOPT_SEEKDATA, pointer: user)
        }
        try easy.setHeaders(try Self.headerLines(request.headers))
    }

    /// Whether a request with this method carries a body even when empty (`Content-Length: 0`).
    private static func sendsBody(_ method: String) -> Bool {
        method == "POST" || method == "PUT" || method == "PATCH"
    }

    /// The header lines to send: `Expect` empty, so a large body goes at once rather than after
    /// a `100 Continue` round trip.
    /// - Throws: `CurlFailure` for a name or value that would split the request (CR, LF, NUL).
    static func headerLines(_ headers: [String: String]) throws(CurlFailure) -> [String] {
        var lines = ["Expect:"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline || $0 == "\0" }),
                  !value.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw CurlFailure(kind: .other, detail: "the header field \(name.debugDescription) cannot be sent")
            }
            // libcurl sends `Name;` as a field with an empty value (`Name:` would remove it).
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        return lines
    }
}
