/// The one error type that becomes a JSON error body:
/// `{"error": {"code": "snake_case", "message": "Human sentence."}}`.
///
/// Handlers throw or return these for anything a client caused; the message is shown to clients,
/// so it must never carry internal detail (paths, SQL, stack traces).
struct HTTPError: Error, Sendable, Equatable {
    /// The HTTP status code, 400–599.
    var status: Int
    /// A stable, machine-readable snake_case code clients can branch on.
    var code: String
    /// A human sentence explaining what went wrong and, where possible, what to do.
    var message: String
    /// Extra response headers the error requires (`Allow`, `Retry-After`, `WWW-Authenticate`).
    var headers: HTTPHeaders

    /// Creates an error answered with `status` and the JSON body built from `code` and `message`.
    init(_ status: Int, code: String, message: String, headers: HTTPHeaders = .init()) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }
}

extension HTTPError {
    /// 400: the request is malformed in a way the client can fix.
    static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(400, code: code, message: message)
    }

    /// 404: nothing lives at this path (or the caller may not know it does).
    static func notFound(_ message: String = "Nothing was found at this path.", code: String = "not_found") -> HTTPError {
        HTTPError(404, code: code, message: message)
    }

    /// 405 with the `Allow` header listing the methods the path does accept.
    static func methodNotAllowed(allowed: [String]) -> HTTPError {
        let list = allowed.joined(separator: ", ")
        return HTTPError(
            405,
            code: "method_not_allowed",
            message: "This path accepts only: \(list).",
            headers: ["Allow": list]
        )
    }

    /// 413: the request body is larger than `limit` bytes.
    static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            413,
            code: "payload_too_large",
            message: "The request body is larger than the limit of \(limit) bytes."
        )
    }

    /// 429 with `Retry-After` (seconds): the client must slow down.
    static func tooManyRequests(retryAfter: Int) -> HTTPError {
        HTTPError(
            429,
            code: "too_many_requests",
            message: "Too many requests; retry after \(retryAfter) seconds.",
            headers: ["Retry-After": String(retryAfter)]
        )
    }

    /// 503 with `Retry-After`: the bodies already being received use up the server's memory budget.
    static let bodyBudgetExhausted = HTTPError(
        503,
        code: "server_busy",
        message: "The server is receiving too much data at once; retry shortly.",
        headers: ["Retry-After": "2"]
    )

    /// 501: the request uses a `Transfer-Encoding` the server does not implement (only chunked).
    static let unsupportedTransferEncoding = HTTPError(
        501,
        code: "not_implemented",
        message: "Only the chunked Transfer-Encoding is supported; send the body with Content-Length or chunked."
    )

    /// 400: `Transfer-Encoding` lists chunked, but not last, so the body's end cannot be found.
    static let invalidTransferEncoding = HTTPError(
        400,
        code: "invalid_transfer_encoding",
        message: "Transfer-Encoding must end with chunked."
    )

    /// 431: the request's header fields take more than `limit` bytes.
    static func headersTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            431,
            code: "request_header_fields_too_large",
            message: "The request's headers are larger than the limit of \(limit) bytes."
        )
    }

    /// 414: the query has more parameters than the server reads.
    static func tooManyQueryParameters(limit: Int) -> HTTPError {
        HTTPError(
            414,
            code: "too_many_query_parameters",
            message: "The URL has more than \(limit) query parameters."
        )
    }

    /// 503: the server is draining for shutdown and takes no new slow work.
    static let shuttingDown = HTTPError(
        503,
        code: "shutting_down",
        message: "The server is shutting down; retry shortly.",
        headers: ["Retry-After": "1"]
    )

    /// 500 for anything unexpected; deliberately says nothing about the cause, which is logged instead.
    static let `internal` = HTTPError(
        500,
        code: "internal_error",
        message: "The server could not complete the request."
    )
}
