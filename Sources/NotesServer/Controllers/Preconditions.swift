import NotesCore

/// Reads the HTTP preconditions that guard note writes (RFC 9110 §13).
enum Preconditions {
    /// The revision in an `If-Match` or `If-None-Match` value such as `"12"` (quotes and a weak
    /// `W/` prefix accepted); `nil` when absent.
    static func revision(in value: String?, header: String) throws(HTTPError) -> Int64? {
        guard var text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        guard let rev = Int64(text), rev >= 0 else {
            throw HTTPError.badRequest("\(header) must be a note revision such as \"12\".", code: "invalid_precondition")
        }
        return rev
    }

    /// The write precondition of a PUT: `If-None-Match: *` (create) or `If-Match: "rev"` (change).
    static func forPut(_ request: HTTPRequest) throws(HTTPError) -> WritePrecondition {
        let ifNoneMatch = request.headers["If-None-Match"]?.trimmingCharacters(in: .whitespaces)
        let ifMatch = try revision(in: request.headers["If-Match"], header: "If-Match")
        switch (ifNoneMatch, ifMatch) {
        case ("*", nil): return .absent
        case (nil, let rev?): return .revision(rev)
        case (nil, nil): throw HTTPError.preconditionRequired
        default: throw HTTPError.badRequest("Send either If-None-Match: * or If-Match, not both.", code: "invalid_precondition")
        }
    }

    /// Whether an `If-None-Match` value matches `etag` (RFC 9110 §13.1.2): `*` matches any
    /// current note; otherwise any listed tag matches, compared weakly (a `W/` prefix is ignored).
    static func ifNoneMatch(_ value: String?, matches etag: String) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    /// The strong ETag of a note revision.
    static func etag(_ rev: Int64) -> String { "\"\(rev)\"" }
}
