/// A route the `RouteTable` can hold: a method and a path pattern.
protocol PatternRoute: Sendable {
    var method: String { get }
    var pattern: RoutePattern { get }
}

/// Routes in registration order, looked up by method and path: the one matching loop of the API
/// router and the web app. The first registered route whose pattern fits the path and whose
/// method is the request's wins (`HEAD` is answered by a `GET` route).
///
/// For each path length in segments (up to `indexedLengths`), the table keeps the routes a path
/// that long can match, by its second segment: a request tries those alone instead of every
/// route. Longer paths try every route.
struct RouteTable<Route: PatternRoute>: Sendable {
    /// What a lookup found.
    enum Lookup {
        /// The route and its path parameters.
        case found(Route, parameters: [String: String])
        /// No route for this method: the methods of the routes whose pattern fits the path, in
        /// registration order (none: no route has this path at all).
        case otherMethods([String])
    }

    private(set) var routes: [Route] = []
    private var candidates = [Candidates](repeating: Candidates(), count: Self.indexedLengths + 1)
    private static var indexedLengths: Int { 16 }

    /// The indices of the routes one path length can match, in registration order.
    private struct Candidates: Sendable {
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

    init() {}

    mutating func append(_ route: Route) {
        let second = route.pattern.literalSecond
        for length in candidates.indices where route.pattern.fits(length: length) {
            // A path shorter than two segments has no second one to look up: all of its length.
            candidates[length].add(routes.count, second: length > 1 ? second : nil)
        }
        routes.append(route)
    }

    /// The route `method` (`HEAD` as `GET`) and `path` reach, or the methods the path takes.
    func lookup(method rawMethod: String, path: String) -> Lookup {
        let segments = RoutePattern.segments(of: path)
        let method = rawMethod == "HEAD" ? "GET" : rawMethod
        var allowed: [String] = []
        for index in candidateIndices(for: segments) {
            let route = routes[index]
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == method { return .found(route, parameters: parameters) }
            allowed.append(route.method)
        }
        return .otherMethods(allowed)
    }

    /// The indices of the routes `segments` can match, in registration order (a superset:
    /// each is still matched in full).
    private func candidateIndices(for segments: [Substring]) -> [Int] {
        guard segments.count < candidates.count else { return Array(routes.indices) }
        return candidates[segments.count].indices(second: segments.count > 1 ? segments[1] : nil)
    }
}
