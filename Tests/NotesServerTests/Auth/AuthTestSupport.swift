import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport
import Testing

/// An HTTP answer as the auth tests look at it.
struct APIResponse: Sendable {
    let status: Int
    /// Header values by lowercased name.
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a wire type (snake_case JSON).
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireJSON.decoder().decode(T.self, from: body) }

    /// The `error.code` of an error body.
    var errorCode: String? { try? decode(APIErrorBody.self).error.code }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// JSON requests against one `TestServer`, over a private URLSession.
struct APIClient: Sendable {
    let baseURL: URL
    let session: URLSession

    init(_ server: TestServer) {
        baseURL = server.baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Sends a request; `token` becomes `Authorization: Bearer`, `authorization` is sent verbatim.
    func send(_ method: String, _ path: String, token: String? = nil, authorization: String? = nil,
              body: Data? = nil, headers: [String: String] = [:]) async throws -> APIResponse {
        var request = URLRequest(url: try #require(URL(string: baseURL.absoluteString + path)))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var lowered: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
        }
        return APIResponse(status: http.statusCode, headers: lowered, body: data)
    }

    /// Sends `value` as the JSON body.
    func send<Body: Encodable>(_ method: String, _ path: String, json value: Body, token: String? = nil) async throws -> APIResponse {
        try await send(method, path, token: token, body: try WireJSON.encoder().encode(value))
    }

    /// `POST /v1/auth/login` with whatever answer comes back.
    func login(_ username: String, _ password: String, device: String? = nil) async throws -> APIResponse {
        try await send("POST", "/v1/auth/login", json: LoginRequest(username: username, password: password, device: device))
    }

    /// Signs in and returns the tokens, failing the test unless the answer is 200.
    func signIn(_ username: String = AuthFixture.username, _ password: String = AuthFixture.password, device: String? = nil) async throws -> TokenResponse {
        let response = try await login(username, password, device: device)
        try #require(response.status == 200, "login answered \(response.status): \(response.text)")
        return try response.decode(TokenResponse.self)
    }

    /// `POST /v1/auth/refresh` with whatever answer comes back.
    func refresh(_ refreshToken: String) async throws -> APIResponse {
        try await send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: refreshToken))
    }

    /// Creates a personal token and returns it, secret included.
    func createToken(_ name: String, scope: TokenScope, expiresIn: Int? = nil, using token: String) async throws -> PersonalTokenResource {
        let response = try await send("POST", "/v1/tokens", json: CreateTokenRequest(name: name, scope: scope, expiresIn: expiresIn), token: token)
        try #require(response.status == 201, "token creation answered \(response.status): \(response.text)")
        return try response.decode(PersonalTokenResource.self)
    }

    /// The status of `GET /v1/me` with `token`, the cheapest "does this token work" probe.
    func me(_ token: String) async throws -> APIResponse {
        try await send("GET", "/v1/me", token: token)
    }
}

/// The account every auth test signs in with, and the way each test gets its own server.
enum AuthFixture {
    static let username = "alice"
    static let password = "correct horse battery"

    /// Runs `body` against a fresh `notes-server serve` with `extraArguments` and the user
    /// `alice`, then stops the server (its temporary database goes with it).
    static func withServer(_ extraArguments: [String] = [], addUser: Bool = true,
                           _ body: (TestServer, APIClient) async throws -> Void) async throws {
        let server = try await TestServer(extraArguments: extraArguments)
        let client = APIClient(server)
        do {
            if addUser { try await AdminProcess.addUser(server, username, password: password) }
            try await body(server, client)
        } catch {
            client.session.invalidateAndCancel()
            await server.stop()
            throw error
        }
        client.session.finishTasksAndInvalidate()
        await server.stop()
    }

    /// Waits out a short token lifetime: the only fixed sleeps in these tests.
    static func waitOut(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes; whether it held.
    static func eventually(timeout: Double = 10, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return try await condition()
    }
}
