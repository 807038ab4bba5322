import Foundation

/// One HTTP request as `CurlClient` sends it: what to send, and how much and how long the answer
/// may take.
public struct CurlRequest: Sendable {
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields to send; `Expect` is always sent empty (no `100-continue` round trip).
    public var headers: [String: String]
    /// What to send; nil sends no body.
    public var body: CurlRequestBody?
    /// The largest answer body accepted; past it the transfer stops (`CurlFailure.Kind.tooLarge`).
    public var maxResponseBytes: Int
    /// The longest time with nothing sent or received before the transfer stops
    /// (`CurlFailure.Kind.timedOut`).
    public var idleTimeout: Duration
    /// The longest the whole exchange may take however steadily bytes flow
    /// (`CurlFailure.Kind.deadlineExceeded`).
    public var deadline: Duration
    /// Where a successful (2xx) answer's body goes as it arrives, instead of into
    /// `CurlResponse.body`; nil: buffered.
    public var sink: (any CurlBodySink)?
    /// The largest answer body held in memory (one the sink does not take), when smaller than
    /// `maxResponseBytes`: a large download into a sink whose error answers stay small.
    public var maxBufferedBytes: Int?

    public init(method: String, url: String, headers: [String: String] = [:], body: CurlRequestBody? = nil,
                maxResponseBytes: Int, idleTimeout: Duration, deadline: Duration, sink: (any CurlBodySink)? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maxResponseBytes = maxResponseBytes
        self.idleTimeout = idleTimeout
        self.deadline = deadline
        self.sink = sink
    }
}

/// A request body, read as it is sent rather than copied first.
public enum CurlRequestBody: Sendable {
    /// Bytes in memory.
    case bytes(Data)
    /// `length` bytes of an open file from `offset`, read with `pread` as they are sent. The
    /// descriptor stays the caller's, and must stay open until the answer has come.
    case file(descriptor: Int32, offset: Int64, length: Int64)

    /// How many bytes it sends (the `Content-Length`).
    var count: Int64 {
        switch self {
        case .bytes(let data): Int64(data.count)
        case .file(_, _, let length): length
        }
    }
}
