import Foundation

/// The live way to test with a user: the real `notes-server` on a free port with its own
/// temporary database, `TestAccount` on it, a client of its API, and for the real `notes` binary
/// a private HOME (so no test touches the developer's own credentials) and a folder to sync in.
/// The other way is the server target's in-process `TestApp`, for what depends on time or on
/// the application's state.
///
/// `with` starts it, runs the body, then stops the server and removes HOME and the work folder,
/// whatever happens. Each test target adds its own helpers in extensions.
public struct LiveServer: Sendable {
    /// Who exists on the server when the body starts, and who is signed in.
    public enum Account: Sendable {
        /// No user at all: sign-up, the admin command, anonymous routes.
        case none
        /// `TestAccount` exists; nobody is signed in.
        case added
        /// `TestAccount` exists and `api` carries its access token.
        case signedIn
        /// `TestAccount` exists and the real `notes` in `home` is logged in as it (`notes login`).
        case loggedIn
    }

    public let server: TestServer
    /// A client of the server's API: signed in as `TestAccount` for `.signedIn`, else anonymous.
    public let api: TestAPIClient
    /// HOME (and `XDG_CONFIG_HOME` under it) for the real `notes` binary.
    public let home: TemporaryDirectory
    /// Where synced folders go.
    public let work: TemporaryDirectory
    /// Where `notes` reaches the server when not directly: a proxy or load balancer in front of it.
    public var via: URL?

    public init(server: TestServer, api: TestAPIClient? = nil, home: TemporaryDirectory, work: TemporaryDirectory,
                via: URL? = nil) {
        self.server = server
        self.api = api ?? TestAPIClient(server)
        self.home = home
        self.work = work
        self.via = via
    }

    /// The URL `notes` is given for the server.
    public var serverURL: String { (via ?? server.baseURL).absoluteString }
    public var configDirectory: URL { home.appending("config") }
    public var credentialsPath: String { configDirectory.appendingPathComponent("notes/credentials.json").path }
    /// The environment `notes` runs in: this HOME and its config folder only.
    public var environment: [String: String] { ["HOME": home.path, "XDG_CONFIG_HOME": configDirectory.path] }

    /// Runs `body` against a fresh server started with the `serve` flags `arguments`
    /// (`--access-token-ttl`, limits, lifetimes) and `account` on it; `environment` is the
    /// server's own, beyond `PATH` (an object store's credentials).
    public static func with(_ arguments: [String] = [], account: Account = .signedIn, environment: [String: String] = [:],
                            _ body: (LiveServer) async throws -> Void) async throws {
        let server = try await TestServer(extraArguments: arguments, environment: environment)
        var folders: [TemporaryDirectory] = []
        do {
            folders = [try TemporaryDirectory("notes-home"), try TemporaryDirectory("notes-sync")]
            var live = LiveServer(server: server, home: folders[0], work: folders[1])
            try await live.prepare(account)
            try await body(live)
        } catch {
            await server.stop()
            for folder in folders { folder.remove() }
            throw error
        }
        await server.stop()
        for folder in folders { folder.remove() }
    }

    /// `with` for a body that needs only the server and the client.
    public static func with(_ arguments: [String] = [], account: Account = .signedIn,
                            _ body: (TestServer, TestAPIClient) async throws -> Void) async throws {
        try await with(arguments, account: account) { (live: LiveServer) in try await body(live.server, live.api) }
    }

    /// Makes `account` true of the fresh server.
    private mutating func prepare(_ account: Account) async throws {
        guard account != .none else { return }
        try await server.addUser(TestAccount.username, password: TestAccount.password)
        switch account {
        case .none, .added:
            break
        case .signedIn:
            self = LiveServer(server: server, api: try await api.signedIn(TestAccount.username, password: TestAccount.password),
                              home: home, work: work, via: via)
        case .loggedIn:
            let login = try await ProcessRunner.run(BuiltProducts.client,
                                                    ["login", "--server", serverURL, "--username", TestAccount.username, "--password-stdin"],
                                                    environment: environment, stdin: TestAccount.password + "\n")
            guard login.exitCode == 0 else { throw LiveServerError.loginFailed(login.stderr) }
        }
    }
}

public enum LiveServerError: Error, CustomStringConvertible {
    case loginFailed(String)

    public var description: String {
        switch self {
        case .loginFailed(let message): "notes login failed: \(message)"
        }
    }
}
