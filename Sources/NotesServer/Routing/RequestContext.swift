import Foundation
import NotesCore

/// A matched request: the request itself, its path parameters, and who is calling.
struct RequestContext: Sendable {
    let request: HTTPRequest
    let parameters: [String: String]
    /// Set for every route that is not `.open`.
    var principal: Principal?
    /// The caller's note named by `:id`, read with the token, for a route that reads it (`Router.add(readsNote:)`).
    var noteReadAhead: NoteReadAhead?
    /// For a route in a space: throws `SpaceError.notFound` once the caller may no longer reach
    /// the space (asked again by a request that waits).
    var recheckAccess: (@Sendable () throws -> Void)?

    init(request: HTTPRequest, parameters: [String: String], principal: Principal? = nil) {
        self.request = request
        self.parameters = parameters
        self.principal = principal
    }

    /// The authenticated caller; routes with `.read`/`.write` access always have one.
    func caller() throws(HTTPError) -> Principal {
        guard let principal else { throw HTTPError.unauthenticated() }
        return principal
    }

    /// The note id in the `:id` path parameter.
    func noteID() throws(HTTPError) -> NoteID {
        // The router already parsed `:id` for a route that reads the note with the token.
        if let readAhead = noteReadAhead { return readAhead.id }
        guard let raw = parameters["id"], let id = NoteID(raw) else {
            throw HTTPError.badRequest("The note id in the path must be a UUID.", code: "invalid_id")
        }
        return id
    }

    /// The space id in the `:space` path parameter.
    /// - Throws: `SpaceError.notFound` for anything but a space id: no answer tells a malformed
    ///   id from a space the caller may not reach.
    func spaceID() throws(SpaceError) -> Int64 {
        guard let id = parameters["space"].flatMap(Self.spaceID(from:)) else { throw .notFound }
        return id
    }

    /// `text` as a space id: a positive decimal number of at most 18 digits.
    static func spaceID(from text: String) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text), id > 0
        else { return nil }
        return id
    }

    /// Decodes the JSON body as `T`, answering 400 with a useful message when it does not fit.
    ///
    /// A type with a hand reader (`WireJSONReadable`: the batch body of an upload) is read by it
    /// first; whatever that reader refuses goes to `JSONDecoder`, whose value or error stands.
    func decode<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard !request.body.isEmpty else { throw HTTPError.badRequest("The request needs a JSON body.", code: "invalid_json") }
        if let readable = T.self as? any WireJSONReadable.Type, let value = Self.readByHand(readable, from: request.body) as? T {
            return value
        }
        do {
            return try WireJSON.decoder().decode(T.self, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, _) {
            throw HTTPError.badRequest("The field \"\(Self.snakeCase(key.stringValue))\" is missing.", code: "invalid_json")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let field = context.codingPath.last.map { Self.snakeCase($0.stringValue) } ?? "body"
            throw HTTPError.badRequest("The field \"\(field)\" has the wrong type.", code: "invalid_json")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            let field = context.codingPath.last.map { Self.snakeCase($0.stringValue) } ?? "body"
            throw HTTPError.badRequest("The field \"\(field)\" has an invalid value.", code: "invalid_json")
        } catch {
            throw HTTPError.badRequest("The body is not valid JSON (or not UTF-8).", code: "invalid_json")
        }
    }

    /// A query parameter as a whole number within `range`, or `defaultValue` when absent.
    func intQuery(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let raw = request.query[name] else { return defaultValue }
        guard let value = Int(raw), range.contains(value) else {
            throw HTTPError.badRequest("The \(name) parameter must be a whole number from \(range.lowerBound) to \(range.upperBound).", code: "invalid_parameter")
        }
        return value
    }

    private static func readByHand<Value: WireJSONReadable>(_ type: Value.Type, from body: [UInt8]) -> Value? {
        WireJSONReading.decode(type, from: body)
    }

    private static func snakeCase(_ key: String) -> String {
        var out = ""
        for character in key {
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
        return out
    }
}

/// A note the router read together with the caller's token: `note` is `nil` when the caller has
/// no note with `id`. Given out only once the token passed every check.
struct NoteReadAhead: Sendable {
    let id: NoteID
    let note: NoteRecord?
    /// `note`'s JSON answer, encoded once per kept revision (see `NoteCache.Answer`), when the
    /// note came from the note cache.
    var answer: NoteCache.Answer? = nil
}
