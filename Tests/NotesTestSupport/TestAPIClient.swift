import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore

/// One HTTP answer from the live server, copied into plain values.
public struct TestAPIResponse: Sendable {
    public let status: Int
    /// Header names lowercased.
    public let headers: [String: String]
    public let body: Data

    /// An answer from parts; the in-process test app builds these from the router's responses.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body decoded with the API's wire conventions.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try WireJSON.decoder().decode(T.self, from: body)
    }

    /// The `code` of a JSON error body, or `nil` when the body is not one.
    public var errorCode: String? { try? decode(APIErrorBody.self).error.code }

    /// Whether the body is the API's JSON error shape (`{"error":{"code","message"}}`).
    public var isErrorBody: Bool {
        guard let body = try? decode(APIErrorBody.self) else { return false }
        return !body.error.code.isEmpty && !body.error.message.isEmpty
    }
}

/// A small URLSession client for end-to-end tests against a real `notes-server`, shared by
/// the server's and the client's test targets.
///
/// URLSession runs its own libcurl thread and calls back on its delegate queue, so awaiting it
/// never blocks GCD's global queue (which grows threads slowly on small machines).
public struct TestAPIClient: Sendable {
    public let baseURL: URL
    /// Sent as `Authorization: Bearer` unless a call gives its own `token` or `authorization`.
    public var token: String?

    public init(baseURL: URL, token: String? = nil) {
        self.baseURL = baseURL
        self.token = token
    }

    /// A client for `server`, not signed in.
    public init(_ server: TestServer) {
        self.init(baseURL: server.baseURL)
    }

    /// One shared session: no cache, no cookies, so conditional requests reach the server as sent.
    public static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    /// Sends one request. `path` is used as given (already percent-encoded where it matters);
    /// query values are percent-encoded strictly, so `+` and `&` arrive as themselves.
    /// `token` overrides the client's own; `authorization` is sent verbatim instead of either.
    public func send(_ method: String, _ path: String, query: [(String, String)] = [], token: String? = nil,
                     authorization: String? = nil, headers: [String: String] = [:], body: Data? = nil) async throws -> TestAPIResponse {
        var text = baseURL.absoluteString + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw TestAPIClientError.badURL(text) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let authorization {
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
        } else if let bearer = token ?? self.token {
            request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestAPIClientError.notHTTP }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TestAPIResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Sends `value` as a JSON body in the wire conventions.
    public func send<T: Encodable>(_ method: String, _ path: String, json value: T, token: String? = nil,
                                   headers: [String: String] = [:]) async throws -> TestAPIResponse {
        try await send(method, path, token: token, headers: headers, body: try WireJSON.encoder().encode(value))
    }

    /// `PUT /v1/notes/{id}` with the given precondition headers.
    public func put(_ id: NoteID, path: String, content: String, headers: [String: String]) async throws -> TestAPIResponse {
        try await send("PUT", "/v1/notes/\(id)", json: PutNoteRequest(path: path, content: content), headers: headers)
    }

    /// Creates a note (`If-None-Match: *`) and returns it; throws unless the answer is 201.
    @discardableResult
    public func create(_ path: String, _ content: String, id: NoteID = NoteID()) async throws -> NoteResource {
        let response = try await put(id, path: path, content: content, headers: ["If-None-Match": "*"])
        guard response.status == 201 else { throw TestAPIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Updates a note at its current revision and returns the new state; throws unless 200.
    @discardableResult
    public func update(_ note: NoteResource, path: String? = nil, content: String) async throws -> NoteResource {
        let response = try await put(note.id, path: path ?? note.path, content: content, headers: ["If-Match": "\"\(note.rev)\""])
        guard response.status == 200 else { throw TestAPIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Deletes a note at its current revision and returns the tombstone; throws unless 200.
    @discardableResult
    public func delete(_ note: NoteResource) async throws -> NoteResource {
        let response = try await send("DELETE", "/v1/notes/\(note.id)", headers: ["If-Match": "\"\(note.rev)\""])
        guard response.status == 200 else { throw TestAPIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Signs `username` in and returns a client carrying the access token.
    public func signedIn(_ username: String, password: String) async throws -> TestAPIClient {
        let response = try await send("POST", "/v1/auth/login", json: LoginRequest(username: username, password: password))
        guard response.status == 200 else { throw TestAPIClientError.unexpected(response.status, response.text) }
        var client = self
        client.token = try response.decode(TokenResponse.self).accessToken
        return client
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

public enum TestAPIClientError: Error, CustomStringConvertible {
    case badURL(String)
    case notHTTP
    case unexpected(Int, String)

    public var description: String {
        switch self {
        case .badURL(let url): "not a URL: \(url)"
        case .notHTTP: "the answer was not HTTP"
        case .unexpected(let status, let body): "unexpected \(status): \(body)"
        }
    }
}

