import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport

/// One HTTP answer from the live server, copied into plain values.
struct APIResponse: Sendable {
    let status: Int
    /// Header names lowercased.
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body decoded with the API's wire conventions.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try WireJSON.decoder().decode(T.self, from: body)
    }

    /// The `code` of a JSON error body, or `nil` when the body is not one.
    var errorCode: String? { try? decode(APIErrorBody.self).error.code }

    /// Whether the body is the API's JSON error shape (`{"error":{"code","message"}}`).
    var isErrorBody: Bool {
        guard let body = try? decode(APIErrorBody.self) else { return false }
        return !body.error.code.isEmpty && !body.error.message.isEmpty
    }
}

/// A small URLSession client for end-to-end tests against a real `notes-server`.
///
/// URLSession runs its own libcurl thread and calls back on its delegate queue, so awaiting it
/// never blocks GCD's global queue (which grows threads slowly on small machines).
struct APIClient: Sendable {
    let baseURL: URL
    var token: String?

    /// One shared session: no cache, no cookies, so conditional requests reach the server as sent.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    /// Sends one request. `path` is used as given (already percent-encoded where it matters);
    /// query values are percent-encoded strictly, so `+` and `&` arrive as themselves.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], headers: [String: String] = [:],
              body: Data? = nil) async throws -> APIResponse {
        var text = baseURL.absoluteString + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw APIClientError.badURL(text) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw APIClientError.notHTTP }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return APIResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Sends `value` as a JSON body in the wire conventions.
    func send<T: Encodable>(_ method: String, _ path: String, json value: T, headers: [String: String] = [:]) async throws -> APIResponse {
        try await send(method, path, headers: headers, body: try WireJSON.encoder().encode(value))
    }

    /// `PUT /v1/notes/{id}` with the given precondition headers.
    func put(_ id: NoteID, path: String, content: String, headers: [String: String]) async throws -> APIResponse {
        try await send("PUT", "/v1/notes/\(id)", json: PutNoteRequest(path: path, content: content), headers: headers)
    }

    /// Creates a note (`If-None-Match: *`) and returns it; throws unless the answer is 201.
    @discardableResult
    func create(_ path: String, _ content: String, id: NoteID = NoteID()) async throws -> NoteResource {
        let response = try await put(id, path: path, content: content, headers: ["If-None-Match": "*"])
        guard response.status == 201 else { throw APIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Updates a note at its current revision and returns the new state; throws unless 200.
    @discardableResult
    func update(_ note: NoteResource, path: String? = nil, content: String) async throws -> NoteResource {
        let response = try await put(note.id, path: path ?? note.path, content: content, headers: ["If-Match": "\"\(note.rev)\""])
        guard response.status == 200 else { throw APIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Deletes a note at its current revision and returns the tombstone; throws unless 200.
    @discardableResult
    func delete(_ note: NoteResource) async throws -> NoteResource {
        let response = try await send("DELETE", "/v1/notes/\(note.id)", headers: ["If-Match": "\"\(note.rev)\""])
        guard response.status == 200 else { throw APIClientError.unexpected(response.status, response.text) }
        return try response.decode(NoteResource.self)
    }

    /// Signs `username` in and returns a client carrying the access token.
    func signedIn(_ username: String, password: String) async throws -> APIClient {
        let response = try await send("POST", "/v1/auth/login", json: LoginRequest(username: username, password: password))
        guard response.status == 200 else { throw APIClientError.unexpected(response.status, response.text) }
        var client = self
        client.token = try response.decode(TokenResponse.self).accessToken
        return client
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

enum APIClientError: Error, CustomStringConvertible {
    case badURL(String)
    case notHTTP
    case unexpected(Int, String)

    var description: String {
        switch self {
        case .badURL(let url): "not a URL: \(url)"
        case .notHTTP: "the answer was not HTTP"
        case .unexpected(let status, let body): "unexpected \(status): \(body)"
        }
    }
}

/// The password every test user gets.
let testPassword = "correct horse battery staple"

/// Starts a real server with its own database, signs in a user `alice`, runs `body`, and
/// stops the server whatever happens.
func withAPIServer(extraArguments: [String] = [], _ body: (TestServer, APIClient) async throws -> Void) async throws {
    let server = try await TestServer(extraArguments: extraArguments)
    do {
        try await server.addUser("alice", password: testPassword)
        let api = try await APIClient(baseURL: server.baseURL).signedIn("alice", password: testPassword)
        try await body(server, api)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
