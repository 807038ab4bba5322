/// A route's path pattern, the one form the API router and the web app both match paths with.
///
/// `/`-separated literals and `:name` parameters (`/v1/notes/:id/revisions/:rev`), optionally
/// ending in a `*name` parameter that takes the rest of the path, one or more segments joined by
/// `/` (`/p/:token/a/*path`). Empty path segments never match; a literal matches the same bytes
/// only (not `==`, which compares by canonical equivalence: a Kelvin sign would match `K`).
struct RoutePattern: Sendable, CustomStringConvertible {
    /// The pattern's segments after the leading `/`.
    let segments: [Substring]
    /// Whether the last segment is a `*name` parameter.
    let takesRest: Bool

    init(_ text: String) {
        segments = text.split(separator: "/")
        takesRest = segments.last?.utf8.first == UInt8(ascii: "*")
    }

    /// The pattern as written (`/v1/notes/:id`).
    var description: String { "/" + segments.joined(separator: "/") }

    /// The second segment when it is a literal (`notes` of `/v1/notes/:id`), for the lookup index.
    var literalSecond: Substring? {
        segments.count > 1 && !Self.isParameter(segments[1]) ? segments[1] : nil
    }

    /// Whether a path of `count` segments can fit.
    func fits(length count: Int) -> Bool {
        takesRest ? count >= segments.count : count == segments.count
    }

    /// The parameters when `path` (split by `segments(of:)`) fits, else `nil`.
    func match(_ path: [Substring]) -> [String: String]? {
        guard fits(length: path.count) else { return nil }
        // Literals first: most routes tried are not the one, and a miss then costs no allocation.
        for (expected, actual) in zip(segments, path) where !Self.isParameter(expected) {
            if !Self.sameBytes(expected, actual) { return nil }
        }
        var parameters: [String: String] = [:]
        for (index, expected) in segments.enumerated() where Self.isParameter(expected) {
            if expected.utf8.first == UInt8(ascii: "*") {
                let rest = path[index...]
                if rest.contains(where: \.isEmpty) { return nil }
                parameters[String(expected.dropFirst())] = rest.joined(separator: "/")
                break
            }
            let actual = path[index]
            if actual.isEmpty { return nil }
            parameters[String(expected.dropFirst())] = String(actual)
        }
        return parameters
    }

    /// The path's `/`-separated segments after the leading `/` (none for `/` itself; every other
    /// empty segment never matches). Split once per request, on the UTF-8 bytes: splitting the
    /// `String` walks it character by character, which cost more than the rest of the routing.
    static func segments(of path: String) -> [Substring] {
        guard path != "/" else { return [] }
        // One pass into one array: every piece after the first `/`-separated one.
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

    /// Whether a literal and a path segment are the same bytes.
    private static func sameBytes(_ literal: Substring, _ segment: Substring) -> Bool {
        literal.utf8.count == segment.utf8.count && literal.utf8.elementsEqual(segment.utf8)
    }

    /// Whether a pattern segment is a `:name` or `*name` parameter rather than a literal.
    private static func isParameter(_ segment: Substring) -> Bool {
        segment.utf8.first == UInt8(ascii: ":") || segment.utf8.first == UInt8(ascii: "*")
    }
}
