import NotesCore

/// Matches a request to a route by method and path pattern, checks its access, and runs it.
///
/// Patterns are `RoutePattern`s (`/v1/notes/:id/revisions/:rev`), looked up in a `RouteTable`.
/// A path that matches with another method gets 405 with `Allow`; no match gets 404. Every
/// error a handler throws becomes a response here: `HTTPError` as its JSON body, a storage
/// failure as 507/503 (see `HTTPError+Storage`), anything else as a bare 500 that is logged with the request id and tells the client nothing internal.
/// Before any of that, the client's request rate is checked (429 past the published limit).
struct Router: HTTPResponder {
    typealias Handler = @Sendable (RequestContext) throws -> HTTPOutcome
    /// Decides, from an authenticated request's head, where its body streams and how long it may be.
    typealias BodySinkMaker = @Sendable (RequestContext) throws -> (sink: any RequestBodySink, maxBytes: Int)

    struct Route: PatternRoute {
        let method: String
        let pattern: RoutePattern
        let access: Access
        let handler: Handler
        /// Set for routes whose body goes to disk as it arrives (see `addStreaming`).
        var bodySink: BodySinkMaker?
        /// The handler reads the caller's note named by `:id`: the router reads it together with
        /// the token (one statement) and hands it over as `RequestContext.noteReadAhead`.
        var readsNote = false
        /// This route's request counts and latencies (see `RouteSeries`).
        var series: RouteSeries
        /// The route works on the notes of the space named by `:space` (`addSpaceRoutes()`).
        var inSpace = false
    }

    var routes = RouteTable<Route>()
    /// Decides who may reach a space, for the routes `addSpaceRoutes()` adds.
    var spaces: SpaceAccess?
    let authenticator: TokenAuthenticator
    private let rateLimiter: RequestRateLimiter?
    let log: @Sendable (String) -> Void
    /// The largest body a route without a token (`.open`) accepts: see `admitBody(of:)`.
    let openBodyLimit: Int

    /// A router that authenticates with `authenticator` and, when given, holds each client
    /// address to `rateLimiter`'s request rate.
    init(authenticator: TokenAuthenticator, rateLimiter: RequestRateLimiter? = nil,
         openBodyLimit: Int = Router.defaultOpenBodyLimit, log: @escaping @Sendable (String) -> Void) {
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
        self.openBodyLimit = openBodyLimit
        self.log = log
    }

    /// Registers `handler` for `method` on `pattern`. `readsNote`: the handler reads the caller's
    /// note named by the `:id` parameter, which the router then reads with the token.
    mutating func add(_ method: String, _ pattern: String, access: Access, readsNote: Bool = false, handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), access: access, handler: handler, readsNote: readsNote,
                            series: RouteSeries(method: method, template: pattern)))
    }

    /// Registers a route whose body is never held in memory: `sink` (run once the head is in and
    /// the caller authenticated) says where it goes; `handler` finds it as `request.bodySink`.
    mutating func addStreaming(_ method: String, _ pattern: String, access: Access, sink: @escaping BodySinkMaker,
                               handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), access: access, handler: handler, bodySink: sink,
                            series: RouteSeries(method: method, template: pattern)))
    }

    /// Every registered route as (method, pattern such as `/v1/notes/:id`, access), in
    /// registration order; tests compare it with the OpenAPI document.
    var routeTable: [(method: String, pattern: String, access: Access)] {
        routes.routes.map { ($0.method, $0.pattern.description, $0.access) }
    }

    /// Every route's series, in registration order, for the metrics.
    var series: [RouteSeries] {
        routes.routes.map(\.series)
    }

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        var matched: RouteSeries?
        do {
            try rateLimiter?.admit(request.remoteAddress)
            let (route, parameters) = try route(method: request.method, path: request.path)
            matched = route.series
            return try route.handler(route.context(for: request, parameters: parameters, authenticator: authenticator, spaces: spaces))
                .answered(by: route.series)
        } catch {
            var response = HTTPResponse.error(HTTPError.answer(for: error, requestID: request.id, log: log))
            response.route = matched
            return .now(response)
        }
    }

    /// The access of the route `method` and `path` reach, decided as `route` decides it.
    /// - Throws: 404 or 405 (with `Allow`) when no route takes the request.
    func access(method rawMethod: String, path: String) throws(HTTPError) -> Access {
        try route(method: rawMethod, path: path).route.access
    }

    /// The route `method` and `path` reach, with its path parameters.
    /// - Throws: 404 or 405 (with `Allow`) when no route takes the request.
    func route(method rawMethod: String, path: String) throws(HTTPError) -> (route: Route, parameters: [String: String]) {
        switch routes.lookup(method: rawMethod, path: path) {
        case .found(let route, let parameters):
            return (route, parameters)
        case .otherMethods(var allowed):
            if allowed.isEmpty { throw HTTPError.notFound("There is no endpoint at this path.") }
            if allowed.contains("GET") { allowed.append("HEAD") }
            throw HTTPError.methodNotAllowed(allowed: allowed)
        }
    }
}
