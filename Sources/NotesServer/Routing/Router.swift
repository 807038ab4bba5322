import NotesCore

/// Matches a request to a route by method and path pattern, checks its access, and runs it.
///
/// Patterns are `/`-separated literals and `:name` parameters (`/v1/notes/:id/revisions/:rev`),
/// optionally ending in a `*name` parameter that takes the rest of the path (`/p/:token/a/*path`).
/// A path that matches with another method gets 405 with `Allow`; no match gets 404. Every
/// error a handler throws becomes a response here: `HTTPError` as its JSON body, a storage
/// failure as 507/503 (see `HTTPError+Storage`), anything else as a bare 500 that is logged with the request id and tells the client nothing internal.
/// Before any of that, the client's request rate is checked (429 past the published limit).
struct Router: HTTPResponder {
    /// Who may call a route.
    enum Access: Sendable {
        /// No token needed (login, health, limits, the API document).
        case open
        /// Any valid token.
        case read
        /// A token allowed to write (sessions and `write` personal tokens).
        case write
    }

    typealias Handler = @Sendable (RequestContext) throws -> HTTPOutcome
    /// Decides, from an authenticated request's head, where its body streams and how long it may be.
    typealias BodySinkMaker = @Sendable (RequestContext) throws -> (sink: any RequestBodySink, maxBytes: Int)

    struct Route: Sendable {
        let method: String
        let pattern: [Substring]
        let access: Access
        let handler: Handler
        /// Set for routes whose body goes to disk as it arrives (see `addStreaming`).
        var bodySink: BodySinkMaker?
        /// The handler reads the caller's note named by `:id`: the router reads it together with
        /// the token (one statement) and hands it over as `RequestContext.noteReadAhead`.
        var readsNote = false
    }

    private var routes: [Route] = []
    /// For each path length in segments (up to `indexedLengths`), the routes a path that long
    /// can match, by its second segment: a request tries those alone instead of every route.
    /// Longer paths try every route.
    private var candidates = [Candidates](repeating: Candidates(), count: Router.indexedLengths + 1)
    private static let indexedLengths = 16

    /// The indices of the routes one path length can match, in registration order.
    private struct Candidates {
        /// Per literal second segment (`notes` of `/v1/notes/:id`), the routes with that literal
        /// there and those with a parameter there.
        var bySecond: [Substring: [Int]] = [:]
        /// The routes with a parameter as second segment, or none: all a path whose second
        /// segment is no route's literal (or that has none) can match.
        var others: [Int] = []

        mutating func add(_ index: Int, second: Substring?) {
            if let second {
                bySecond[second, default: others].append(index)
            } else {
                others.append(index)
                for key in bySecond.keys { bySecond[key]?.append(index) }
            }
        }

        func indices(second: Substring?) -> [Int] {
            second.flatMap { bySecond[$0] } ?? others
        }
    }
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
        append(Route(method: method, pattern: pattern.split(separator: "/"), access: access, handler: handler, readsNote: readsNote))
    }

    /// Registers a route whose body is never held in memory: `sink` (run once the head is in and
    /// the caller authenticated) says where it goes; `handler` finds it as `request.bodySink`.
    mutating func addStreaming(_ method: String, _ pattern: String, access: Access, sink: @escaping BodySinkMaker,
                               handler: @escaping Handler) {
        append(Route(method: method, pattern: pattern.split(separator: "/"), access: access, handler: handler, bodySink: sink))
    }

    private mutating func append(_ route: Route) {
        let takesRest = route.pattern.last?.utf8.first == UInt8(ascii: "*")
        let second = route.pattern.count > 1 && !Self.isParameter(route.pattern[1]) ? route.pattern[1] : nil
        for length in candidates.indices where takesRest ? length >= route.pattern.count : length == route.pattern.count {
            // A path shorter than two segments has no second one to look up: all of its length.
            candidates[length].add(routes.count, second: length > 1 ? second : nil)
        }
        routes.append(route)
    }

    /// The indices of the routes `segments` can match, in registration order (a superset:
    /// each is still matched in full).
    private func candidateIndices(for segments: [Substring]) -> [Int] {
        guard segments.count < candidates.count else { return Array(routes.indices) }
        return candidates[segments.count].indices(second: segments.count > 1 ? segments[1] : nil)
    }

    /// Every registered route as (method, pattern such as `/v1/notes/:id`, access), in
    /// registration order; tests compare it with the OpenAPI document.
    var routeTable: [(method: String, pattern: String, access: Access)] {
        routes.map { ($0.method, "/" + $0.pattern.joined(separator: "/"), $0.access) }
    }

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        do {
            return try route(request)
        } catch {
            return .now(.error(HTTPError.answer(for: error, requestID: request.id, log: log)))
        }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPOutcome {
        try rateLimiter?.admit(request.remoteAddress)
        let segments = Self.segments(of: request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        var allowed: [String] = []
        for index in candidateIndices(for: segments) {
            let route = routes[index]
            guard let parameters = Self.match(route.pattern, segments) else { continue }
            guard route.method == method else {
                allowed.append(route.method)
                continue
            }
            var context = RequestContext(request: request, parameters: parameters)
            if route.access != .open {
                let principal: Principal
                if route.readsNote, let id = parameters["id"].flatMap(NoteID.init) {
                    let read = try authenticator.authenticate(request, readingNote: id)
                    principal = read.principal
                    context.noteReadAhead = NoteReadAhead(id: id, note: read.note, answer: read.answer)
                } else {
                    principal = try authenticator.authenticate(request)
                }
                if route.access == .write, principal.scope != .write {
                    throw HTTPError.insufficientScope
                }
                context.principal = principal
            }
            return try route.handler(context)
        }
        if allowed.isEmpty { throw HTTPError.notFound("There is no endpoint at this path.") }
        if allowed.contains("GET") { allowed.append("HEAD") }
        throw HTTPError.methodNotAllowed(allowed: allowed)
    }

    /// The access of the route `method` and `path` reach, decided as `route` decides it.
    /// - Throws: 404 or 405 (with `Allow`) when no route takes the request.
    func access(method rawMethod: String, path: String) throws(HTTPError) -> Access {
        try route(method: rawMethod, path: path).route.access
    }

    /// The route `method` and `path` reach, with its path parameters.
    /// - Throws: 404 or 405 (with `Allow`) when no route takes the request.
    func route(method rawMethod: String, path: String) throws(HTTPError) -> (route: Route, parameters: [String: String]) {
        let segments = Self.segments(of: path)
        let method = rawMethod == "HEAD" ? "GET" : rawMethod
        var allowed: [String] = []
        for index in candidateIndices(for: segments) {
            let route = routes[index]
            guard let parameters = Self.match(route.pattern, segments) else { continue }
            if route.method == method { return (route, parameters) }
            allowed.append(route.method)
        }
        if allowed.isEmpty { throw HTTPError.notFound("There is no endpoint at this path.") }
        if allowed.contains("GET") { allowed.append("HEAD") }
        throw HTTPError.methodNotAllowed(allowed: allowed)
    }

    /// The path's `/`-separated segments after the leading `/` (none for `/` itself; every other
    /// empty segment never matches). Split once per request, on the UTF-8 bytes: splitting the
    /// `String` walks it character by character, which cost more than the rest of the routing.
    static func segments(of path: String) -> [Substring] {
        guard path != "/" else { return [] }
        // One pass into one array: every piece after the first `/`-separated one (`split`
        // then `map` built two arrays per request).
        var segments: [Substring] = []
        segments.reserveCapacity(8)
        let utf8 = path.utf8
        var start: String.Index?
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if let start { segments.append(path[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if let start { segments.append(path[start..<index]) }
        return segments
    }

    /// The parameters when `segments` fits `pattern`, else `nil`. Empty segments never match.
    /// A last pattern segment `*name` takes one or more segments, joined by `/` (a file path).
    private static func match(_ pattern: [Substring], _ segments: [Substring]) -> [String: String]? {
        let takesRest = pattern.last?.utf8.first == UInt8(ascii: "*")
        guard takesRest ? segments.count >= pattern.count : pattern.count == segments.count else { return nil }
        // Literals first: most routes tried are not the one, and a miss then costs no allocation.
        for (expected, actual) in zip(pattern, segments) where !isParameter(expected) {
            if !sameBytes(expected, actual) { return nil }
        }
        var parameters: [String: String] = [:]
        // The parameters: every literal matched already.
        for (index, expected) in pattern.enumerated() where isParameter(expected) {
            if expected.utf8.first == UInt8(ascii: "*") {
                let rest = segments[index...]
                if rest.contains(where: \.isEmpty) { return nil }
                parameters[String(expected.dropFirst())] = rest.joined(separator: "/")
                break
            }
            let actual = segments[index]
            if actual.isEmpty { return nil }
            parameters[String(expected.dropFirst())] = String(actual)
        }
        return parameters
    }

    /// Whether a literal and a path segment are the same bytes. Not `==`, which compares by
    /// canonical equivalence (a Kelvin sign would match `K`), and walks both for it on every
    /// route tried: a route's literal is matched exactly as registered.
    private static func sameBytes(_ literal: Substring, _ segment: Substring) -> Bool {
        literal.utf8.count == segment.utf8.count && literal.utf8.elementsEqual(segment.utf8)
    }

    /// Whether a pattern segment is a `:name` or `*name` parameter rather than a literal.
    private static func isParameter(_ segment: Substring) -> Bool {
        segment.utf8.first == UInt8(ascii: ":") || segment.utf8.first == UInt8(ascii: "*")
    }
}
