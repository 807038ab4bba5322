/// What a handler returns: an answer now, on the connection thread, or later from async work.
///
/// `.now` is the hot path: no suspension, no task hop, the response is queued before the handler
/// returns. `.later` is for work that must never block a connection thread (argon2 password
/// hashing, waiting on another service): the connection is suspended until the work finishes,
/// which costs throughput, so use it only where needed.
enum HTTPOutcome: Sendable {
    /// Answer immediately on the calling MHD thread.
    case now(HTTPResponse)
    /// Suspend the connection, run the closure in a `Task`, and answer with its result.
    case later(@Sendable () async -> HTTPResponse)
}

/// The application side of the HTTP layer: turns a complete request into an outcome.
///
/// The server calls it from libmicrohttpd's threads, possibly several at once when the server runs
/// a thread pool, hence `Sendable`. It must not block for long: anything slow belongs in `.later`.
protocol HTTPResponder: Sendable {
    /// Called once the full body is read; synchronous, runs on an MHD thread.
    func respond(to request: HTTPRequest) -> HTTPOutcome

    /// Called when the headers are in and the request announces a body, before a byte of it is
    /// read: how large a body this request may send, or the answer that refuses it now.
    ///
    /// `head` is the request with an empty body. Deciding here (route, method, credentials)
    /// means nobody without a token can make the server hold a large body.
    func admitBody(of head: HTTPRequest) -> BodyAdmission

    /// The answer refusing a request for its body (larger than the limit, or refused by
    /// `admitBody`), decided without the body: the JSON error by default. A responder that
    /// serves pages to browsers answers with a page instead.
    func refusal(_ error: HTTPError, for head: HTTPRequest) -> HTTPResponse
}

/// What a responder decides about a body from the request's head alone.
enum BodyAdmission: Sendable {
    /// Read a body of at most this many bytes (the server's own limit still applies).
    case accept(maxBytes: Int)
    /// Hand the body, at most `maxBytes`, to `sink` piece by piece instead of holding it in
    /// memory (it counts against no memory budget); the handler gets it as `HTTPRequest.bodySink`.
    case stream(any RequestBodySink, maxBytes: Int)
    /// Answer with this error without reading the body.
    case refuse(HTTPError)
}

extension HTTPResponder {
    /// By default any body up to the server's limit is read.
    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        .accept(maxBytes: .max)
    }

    /// By default the JSON error.
    func refusal(_ error: HTTPError, for head: HTTPRequest) -> HTTPResponse {
        .error(error)
    }
}

/// A responder built from a closure, handy for tests and small tools.
struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPOutcome

    /// Wraps `body` as a responder.
    init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPOutcome) {
        self.body = body
    }

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        body(request)
    }
}

extension HTTPOutcome {
    /// This outcome, its response marked as answered by `route` (for the metrics), now or once
    /// the work finishes.
    func answered(by route: RouteSeries) -> HTTPOutcome {
        switch self {
        case .now(var response):
            response.route = route
            return .now(response)
        case .later(let work):
            return .later {
                var response = await work()
                response.route = route
                return response
            }
        }
    }
}
