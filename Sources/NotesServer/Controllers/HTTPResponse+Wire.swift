import NotesCore

extension HTTPResponse {
    /// A JSON answer in the API's wire conventions (snake_case keys, sorted, unescaped slashes).
    /// An encoding failure becomes a 500 error response, never a crash.
    static func wire<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        guard let data = try? WireJSON.encoder().encode(value) else { return .error(.internal) }
        return HTTPResponse(status: status, headers: ["Content-Type": jsonContentType], body: Array(data))
    }
}

extension HTTPResponse {
    /// The same answer for the shapes on hot paths, written by hand (`WireJSONWriter`): identical
    /// bytes, without `JSONEncoder`'s cost, and it cannot fail.
    static func wire<T: WireJSONWritable>(_ value: T, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": jsonContentType], body: value.wireJSON())
    }
}
