import Foundation
import NotesCore

/// The conditions a WebDAV request carries, checked before it changes anything:
/// `If-Match` / `If-None-Match` on the ETag (the content hash), and the `If` header with its
/// lock tokens and ETags (RFC 4918 §10.4).
struct DAVConditions {
    /// One condition of an `If` list: a state token or an ETag, maybe negated.
    struct Condition: Equatable {
        var negated: Bool
        /// `opaquelocktoken:…` or any other Coded-URL.
        var token: String?
        /// An entity tag, quotes included.
        var etag: String?
    }

    /// The lists of the `If` header, each with the resource it is tagged with (nil: the
    /// request's own).
    var lists: [(resource: DAVLocation?, conditions: [Condition])] = []

    /// Every lock token the `If` header names: a lock is honoured when its token was submitted.
    var submittedTokens: Set<String> {
        Set(lists.flatMap { $0.conditions.compactMap { $0.negated ? nil : $0.token } })
    }

    /// Reads the `If` header of `request`.
    /// - Throws: 400 when it is present but cannot be read.
    init(_ request: HTTPRequest) throws(HTTPError) {
        guard let header = request.headers["If"] else { return }
        lists = try Self.parse(header, host: request.headers["Host"])
    }

    /// The ETag WebDAV gives an entry: its content hash, quoted.
    static func etag(_ entry: NoteRecord) -> String { "\"\(entry.hash)\"" }

    /// Checks `If-Match`, `If-None-Match` and `If` against `entry`, the resource at `location`
    /// now (nil: nothing there); `isFolder` for an existing folder.
    /// - Throws: 412 when a condition does not hold.
    func check(_ request: HTTPRequest, location: DAVLocation, entry: NoteRecord?, isFolder: Bool,
               locks: DAVLockTable, userID: Int64, etagOf: (DAVLocation) -> String?) throws(HTTPError) {
        let exists = entry != nil || isFolder
        let current = entry.map(Self.etag)
        if let ifMatch = request.headers["If-Match"] {
            let tags = Self.entityTags(ifMatch)
            let holds = tags.contains("*") ? exists : (current.map { tag in tags.contains { Self.weakEqual($0, tag) } } ?? false)
            guard holds else { throw Self.failed("If-Match does not match the current version (ETag \(current ?? "none")).") }
        }
        if let ifNoneMatch = request.headers["If-None-Match"], request.method != "GET", request.method != "HEAD" {
            let tags = Self.entityTags(ifNoneMatch)
            let matches = tags.contains("*") ? exists : (current.map { tag in tags.contains { Self.weakEqual($0, tag) } } ?? false)
            guard !matches else { throw Self.failed("If-None-Match matches: something is already there.") }
        }
        guard !lists.isEmpty else { return }
        let anyHolds = lists.contains { list in
            let resource = list.resource ?? location
            return list.conditions.allSatisfy { condition in
                let value: Bool
                if let token = condition.token {
                    value = locks.lock(token: token).map { $0.userID == userID && resource.space == location.space && $0.covers(space: DAVSpace.storedKey, path: resource.path) } ?? false
                } else if let etag = condition.etag {
                    let tag = resource == location ? current : etagOf(resource)
                    value = tag.map { Self.weakEqual($0, etag) } ?? false
                } else {
                    value = false
                }
                return value != condition.negated
            }
        }
        guard anyHolds else { throw Self.failed("The If header's conditions do not hold.") }
    }

    /// Refuses a write to `location` (and, for `deep`, anything inside it) that a lock covers
    /// whose token was not submitted.
    /// - Throws: 423 `lock-token-submitted`.
    func checkLocks(_ locks: DAVLockTable, userID: Int64, location: DAVLocation, deep: Bool) throws(HTTPError) {
        let held = deep ? locks.touching(userID: userID, space: DAVSpace.storedKey, path: location.path)
                        : locks.covering(userID: userID, space: DAVSpace.storedKey, path: location.path)
        let submitted = submittedTokens
        guard held.allSatisfy({ submitted.contains($0.token) }) else {
            throw HTTPError(423, code: "lock-token-submitted",
                            message: "The resource is locked; send the lock's token in an If header to change it.")
        }
    }

    static func failed(_ message: String) -> HTTPError {
        HTTPError(412, code: "precondition_failed", message: message)
    }

    /// The entity tags of an `If-Match` or `If-None-Match` value (`*` as itself).
    static func entityTags(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): equal opaque tags, `W/` ignored.
    static func weakEqual(_ a: String, _ b: String) -> Bool {
        func opaque(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag) }
        return opaque(a) == opaque(b)
    }

    /// Parses `If` (RFC 4918 §10.4): untagged lists `(…)`, or lists tagged with `<URL>`.
    ///
    /// A last list that the end of the header cuts off is dropped rather than refused: some
    /// clients write the header into a fixed buffer (neon, under litmus and cadaver) and cut a
    /// long one, and a content hash makes long ETags. Lists are alternatives, so dropping one
    /// can only make the header harder to satisfy, and its tokens count as not submitted.
    private static func parse(_ header: String, host: String?) throws(HTTPError) -> [(resource: DAVLocation?, conditions: [Condition])] {
        let invalid = HTTPError.badRequest("The If header cannot be read (RFC 4918 §10.4).", code: "invalid_if_header")
        var result: [(resource: DAVLocation?, conditions: [Condition])] = []
        var scalars = Substring(header)
        var resource: DAVLocation?
        func skipSpace() { scalars = scalars.drop { $0 == " " || $0 == "\t" } }
        func take(until end: Character) -> Substring? {
            guard let close = scalars.firstIndex(of: end) else { return nil }
            let value = scalars[..<close]
            scalars = scalars[scalars.index(after: close)...]
            return value
        }
        skipSpace()
        while let first = scalars.first {
            if first == "<" {
                scalars = scalars.dropFirst()
                guard let url = take(until: ">") else { throw invalid }
                resource = try? DAVLocation(destination: String(url), host: host)
                if resource == nil { resource = DAVLocation(space: "\u{0}unknown", path: "") }
            } else if first == "(" {
                scalars = scalars.dropFirst()
                var conditions: [Condition] = []
                while true {
                    skipSpace()
                    // A list cut off by the end of the header is dropped (see `parse`).
                    guard let next = scalars.first else { return try cutOff(result, invalid) }
                    if next == ")" {
                        scalars = scalars.dropFirst()
                        break
                    }
                    var negated = false
                    if scalars.lowercased().hasPrefix("not") {
                        negated = true
                        scalars = scalars.dropFirst(3)
                        skipSpace()
                    }
                    if scalars.first == "<" {
                        scalars = scalars.dropFirst()
                        guard let token = take(until: ">") else { return try cutOff(result, invalid) }
                        conditions.append(Condition(negated: negated, token: String(token), etag: nil))
                    } else if scalars.first == "[" {
                        scalars = scalars.dropFirst()
                        guard let etag = take(until: "]") else { return try cutOff(result, invalid) }
                        conditions.append(Condition(negated: negated, token: nil, etag: String(etag)))
                    } else {
                        throw invalid
                    }
                }
                guard !conditions.isEmpty else { throw invalid }
                result.append((resource, conditions))
            } else {
                throw invalid
            }
            skipSpace()
        }
        guard !result.isEmpty else { throw invalid }
        return result
    }

    /// The lists read before one the header's end cut off; refused when there are none.
    private static func cutOff(_ complete: [(resource: DAVLocation?, conditions: [Condition])],
                               _ invalid: HTTPError) throws(HTTPError) -> [(resource: DAVLocation?, conditions: [Condition])] {
        guard !complete.isEmpty else { throw invalid }
        return complete
    }
}
