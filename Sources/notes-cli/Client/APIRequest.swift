import Foundation
import NotesCore

/// A request to the Notes API, described independently of who signs it.
struct APIRequest: Sendable {
    var method: String
    /// Starts with `/`, percent-encoded, such as `/v1/notes`.
    var path: String
    var query: [(String, String)] = []
    var body: Data?
    /// A body sent from a range of an open file instead of `body` (an upload chunk).
    var bodyFile: FileBody?
    var accept = "application/json"
    /// Whether sending it twice does no more than sending it once. GET/HEAD/PUT/DELETE are by
    /// HTTP's definition; a POST is only when its caller says so (a batch whose every operation
    /// carries a precondition, a logout). Only idempotent requests are retried after an answer
    /// that may have followed a change (5xx, 429, a timeout).
    var idempotent: Bool
    /// Whether it carries the bearer token (login and refresh do not).
    var authenticated = true
    var headers: [String: String] = [:]
    /// The largest answer body accepted; nil: the bound that follows the server's limits
    /// (`ResponseBudget`).
    var maxResponseBytes: Int?
    /// How long the server may hold the answer by design (a long poll); see `HTTPRequest.serverHold`.
    var serverHold: Duration = .zero
    /// Where a successful answer's body goes as it arrives (`HTTPRequest.bodySink`). A streamed
    /// request is never sent again by the transport once bytes may have reached the sink: its
    /// caller resumes it (a `Range` request) instead.
    var bodySink: (any ResponseBodySink)?

    init(_ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil,
         idempotent: Bool? = nil, authenticated: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.idempotent = idempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
        self.authenticated = authenticated
    }

    /// A request whose body is `value` as wire JSON.
    static func json<T: Encodable>(_ method: String, _ path: String, _ value: T, idempotent: Bool? = nil,
                                   authenticated: Bool = true) throws -> APIRequest {
        var request = APIRequest(method, path, body: try WireJSON.encoder().encode(value),
                                 idempotent: idempotent, authenticated: authenticated)
        request.headers["Content-Type"] = "application/json; charset=utf-8"
        return request
    }
}

/// The server answered, but not with success: the status, its error code and its message.
///
/// Thrown for every non-2xx answer that is not handled (401 on an authenticated request is
/// handled by refreshing): callers such as sync branch on `status` and `code` (404, 409, 412...).
struct APIStatusError: Error, Sendable, CustomStringConvertible {
    var status: Int
    var code: String
    var message: String
    /// The raw body, for a 412 that carries the current note.
    var body: Data
    /// The server's `Retry-After`, in seconds, when it sent one (429, 503).
    var retryAfter: Double?

    /// The error an unsuccessful answer stands for.
    init(_ response: HTTPResponse) {
        self.init(status: response.status, body: response.body)
        retryAfter = RetryPolicy.retryAfterSeconds(response.header("Retry-After"))
    }

    init(status: Int, body: Data) {
        self.status = status
        self.body = body
        if let decoded = try? WireJSON.decoder().decode(APIErrorBody.self, from: body) {
            code = decoded.error.code
            message = decoded.error.message
        } else {
            code = "http_\(status)"
            message = HTTPURLResponseStatus.text(status)
        }
    }

    /// One sentence for stderr: the server's own message, which never holds a secret, with any
    /// control characters in it made visible.
    var description: String {
        let sentence = Terminal.printable(message.hasSuffix(".") ? String(message.dropLast()) : message)
        return "\(sentence) (HTTP \(status), \(code))"
    }
}

/// Reason phrases for statuses whose answer had no error body (a proxy's 502, say).
enum HTTPURLResponseStatus {
    static func text(_ status: Int) -> String {
        switch status {
        case 400: "bad request"
        case 401: "not signed in"
        case 403: "forbidden"
        case 404: "not found"
        case 409: "conflict"
        case 412: "precondition failed"
        case 413: "request too large"
        case 429: "too many requests"
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: "the server answered HTTP \(status)"
        }
    }
}
