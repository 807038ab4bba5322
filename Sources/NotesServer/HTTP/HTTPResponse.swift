import Foundation
import NotesCore

/// A response to send: status, headers and the complete body.
///
/// `Content-Length` is never set here: libmicrohttpd derives it from the body's byte count.
/// `X-Request-Id` and a default `Content-Type` are added by the server when the response is queued.
struct HTTPResponse: Sendable {
    /// The HTTP status code, 100–599; anything else is replaced by a 500 when queued.
    var status: Int
    /// Response headers; `Content-Length` and `Transfer-Encoding` set here are ignored because
    /// libmicrohttpd owns framing; `Connection: close` closes the connection after this answer.
    var headers: HTTPHeaders
    /// The body bytes (omitted on the wire for `HEAD`, 204 and 304).
    var body: [UInt8]
    /// A file sent as the body instead of `body` (a download), never read into memory.
    var file: ResponseFile?
    /// The route that answered, for the metrics (`RouteSeries`); set by the router.
    var route: RouteSeries?

    /// Creates a response with the given parts.
    init(status: Int, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The media type every JSON body is sent with.
    static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON response encoded with sorted keys and unescaped slashes.
    ///
    /// Sorted keys keep output stable for tests and caches. An encoding failure (a non-finite
    /// `Double`, a throwing custom encoder) becomes a 500 error response rather than a crash.
    static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return .error(.internal)
        }
        return HTTPResponse(
            status: status,
            headers: ["Content-Type": jsonContentType],
            body: Array(data)
        )
    }

    /// The JSON error body `{"error":{"code":…,"message":…}}` with the error's status and headers.
    static func error(_ error: HTTPError) -> HTTPResponse {
        var response = HTTPResponse(
            status: error.status,
            headers: ["Content-Type": jsonContentType],
            body: ErrorBody.encode(code: error.code, message: error.message)
        )
        for (name, value) in error.headers {
            response.headers[name] = value
        }
        return response
    }

    /// 204 No Content, with no body.
    static func noContent() -> HTTPResponse {
        HTTPResponse(status: 204)
    }
}

/// The wire shape of an error, written by hand so it cannot fail (and costs no `JSONEncoder`).
private enum ErrorBody {
    static func encode(code: String, message: String) -> [UInt8] {
        APIErrorBody(code: code, message: message).wireJSON()
    }
}
