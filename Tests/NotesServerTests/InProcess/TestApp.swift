import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The real application, built in-process on its own temporary database with a `TestClock`;
/// requests go straight to its router (deferred `.later` answers are awaited), so API and auth
/// semantics that depend on time are tested without a process and without sleeping. The live
/// binary stays the test for HTTP framing and the command line.
///
/// The database is on this pass's backend (`TestBackend.current`): a SQLite file in a temporary
/// folder, or with `NOTES_TEST_BACKEND=postgres` a fresh database in the test cluster, dropped by
/// `close()`.
final class TestApp: Sendable {
    let application: Application
    let clock: TestClock
    let log = LogSink()
    private let directory: TemporaryDirectory
    /// The app's own database in the test cluster, on the PostgreSQL pass; dropped by `close()`.
    private let postgres: PostgresTestDatabase?

    /// The application's SQLite file (beside it, the attachments' `.content` folder).
    var databasePath: String { directory.appending("notes.sqlite").path }

    /// What `--db` would take for the app's database: the SQLite path, or the PostgreSQL URL.
    var databaseLocation: String {
        guard let postgres, let cluster = TestPostgresCluster.url else { return databasePath }
        return TestPostgresCluster.url(cluster, database: postgres.name)
    }

    /// Builds the application; `configure` adjusts the configuration (lifetimes, limits).
    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("notes-app")
        clock = TestClock()
        do {
            postgres = TestBackend.current == .postgres ? try PostgresTestDatabase.create() : nil
        } catch {
            directory.remove()
            throw error
        }
        var configuration = ServerConfiguration()
        configuration.databasePath = directory.appending("notes.sqlite").path
        if let postgres, let cluster = TestPostgresCluster.url {
            configuration.databasePath = TestPostgresCluster.url(cluster, database: postgres.name)
        }
        configuration.clock = clock.serverClock
        configure(&configuration)
        do {
            // A test that names a store of its own keeps it.
            if !configuration.contentStore.isS3, let s3 = TestContentStore.s3(forDatabase: configuration.databasePath) {
                configuration.contentStore = try ContentStoreChoice.parse(store: s3.store, endpoint: s3.endpoint, region: nil,
                                                                          credentialsFile: nil, environment: s3.environment)
            }
            application = try buildApplication(configuration, log: log.append)
        } catch {
            postgres?.drop()
            directory.remove()
            throw error
        }
    }

    /// Runs `body` with a fresh app that has the user `TestAccount`, then closes its database and
    /// removes its folder. The in-process way to test with a user; the live one is `LiveServer`.
    static func with(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                     _ body: (TestApp) async throws -> Void) async throws {
        let app = try TestApp(configure)
        defer { app.close() }
        try app.addUser(TestAccount.username, password: TestAccount.password)
        try await body(app)
    }

    /// Creates a user directly in the store (the admin command's work without its process).
    func addUser(_ username: String, password: String) throws {
        _ = try UserStore(database: application.database, clock: clock.serverClock)
            .create(username: username, passwordHash: try PasswordHash.make(password))
    }

    /// Sends one request through the router as if it came from `address`.
    func send(_ method: String, _ path: String, query: [String: String] = [:], body: Data? = nil, token: String? = nil,
              headers extra: [String: String] = [:], from address: String = "127.0.0.1") async -> TestAPIResponse {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body.map(Array.init) ?? [],
                                  remoteAddress: address)
        let response: HTTPResponse
        switch application.router.respond(to: request) {
        case .now(let answer): response = answer
        case .later(let work): response = await work()
        }
        var names: [String: String] = [:]
        for (name, value) in response.headers { names[name.lowercased()] = value }
        return TestAPIResponse(status: response.status, headers: names, body: Data(response.body))
    }

    /// Sends `value` as the JSON body.
    func send<T: Encodable>(_ method: String, _ path: String, json value: T, token: String? = nil,
                            headers: [String: String] = [:], from address: String = "127.0.0.1") async throws -> TestAPIResponse {
        await send(method, path, body: try WireJSON.encoder().encode(value), token: token, headers: headers, from: address)
    }

    /// `POST /v1/auth/login` from `address`.
    func login(_ username: String = TestAccount.username, _ password: String = TestAccount.password,
               from address: String = "127.0.0.1", replacing refreshToken: String? = nil) async throws -> TestAPIResponse {
        var request = LoginRequest(username: username, password: password)
        request.replacesRefreshToken = refreshToken
        return try await send("POST", "/v1/auth/login", json: request, from: address)
    }

    /// Signs in as `TestAccount` and returns the tokens, failing the test unless the answer is 200.
    func signIn(from address: String = "127.0.0.1") async throws -> TokenResponse {
        let response = try await login(from: address)
        try #require(response.status == 200, "login answered \(response.status): \(response.text)")
        return try response.decode(TokenResponse.self)
    }

    /// `POST /v1/auth/refresh`.
    func refresh(_ refreshToken: String) async throws -> TestAPIResponse {
        try await send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: refreshToken))
    }

    /// `GET /v1/me` with `token`, the cheapest "does this token work" probe.
    func me(_ token: String) async -> TestAPIResponse {
        await send("GET", "/v1/me", token: token)
    }

    /// Creates a personal token with `token` and returns it, secret included.
    func createToken(_ name: String, scope: TokenScope, expiresIn: Int? = nil, using token: String) async throws -> PersonalTokenResource {
        let response = try await send("POST", "/v1/tokens", json: CreateTokenRequest(name: name, scope: scope, expiresIn: expiresIn), token: token)
        try #require(response.status == 201, "token creation answered \(response.status): \(response.text)")
        return try response.decode(PersonalTokenResource.self)
    }

    /// One number from the application's database, such as a count of rows.
    func count(_ sql: String) throws -> Int64 {
        try application.database.read { db in try db.scalarInt(sql) ?? -1 }
    }

    /// Everything the app's database holds as bytes (`TestDatabase.storedBytes()`), for a test
    /// that proves a secret is not among them.
    func storedBytes() async throws -> Data {
        try await TestDatabase.existing(databaseLocation).storedBytes()
    }

    func close() {
        try? application.close()
        postgres?.drop()
        directory.remove()
    }
}
