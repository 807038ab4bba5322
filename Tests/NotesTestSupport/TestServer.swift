import Foundation

/// A real `notes-server` process on 127.0.0.1 with a free port and its own temporary database.
///
/// Start one per test (they run in parallel); `stop()` sends SIGTERM and waits, and removes the
/// temporary folder. The server's stderr (its request log) is kept for assertions.
///
/// The database is on this pass's backend (`TestBackend.current`): a SQLite file in the server's
/// folder, or with `NOTES_TEST_BACKEND=postgres` a fresh database in the test cluster, dropped
/// by `stop()`.
public final class TestServer: Sendable {
    public let directory: TemporaryDirectory
    public let process: ChildProcess
    public let port: Int
    /// What the server printed on stdout up to the line that says where it listens (the
    /// metrics listener's address among it, with `--metrics-listen`).
    public let startupOutput: String
    /// The server's stderr, read as it comes.
    private let errors: PipeCollector

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The server's database; `database.location` is what `--db` takes (a path or a URL).
    public let database: TestDatabase
    /// Whether `stop()` drops the database: it made it (the default), nobody shares it.
    private let ownsDatabase: Bool

    /// What `--db` takes for this server's database: a SQLite path or a PostgreSQL URL.
    public var databaseLocation: String { database.location }

    /// The SQLite file, for the tests that open it themselves; `nil` on the PostgreSQL pass
    /// (such tests are SQLite-only: `TestBackend.sqliteOnlyReason`).
    public var sqlitePath: String? { database.sqlitePath }

    /// Starts the server and waits until it prints the address it listens on.
    /// - Parameters:
    ///   - extraArguments: more `serve` flags, such as `["--access-token-ttl", "2"]`.
    ///   - database: a database that outlives this server (a restart, two servers sharing one),
    ///     as a `--db` value; by default a new one on this pass's backend, removed by `stop()`.
    ///   - port: a fixed port (a restart on the same address); by default a free one.
    ///   - environment: more environment for the server (an object store's credentials).
    public init(extraArguments: [String] = [], database: String? = nil, port: Int = 0, environment: [String: String] = [:]) async throws {
        let directory = try TemporaryDirectory("notes-server")
        let owned: TestDatabase
        do {
            owned = try await Self.database(database, in: directory)
        } catch {
            directory.remove()
            throw error
        }
        let process: ChildProcess
        do {
            let store = TestContentStore.serveArguments(forDatabase: owned.location)
            let arguments = ["serve", "--db", owned.location, "--listen", "127.0.0.1:\(port)"] + store.arguments + extraArguments
            process = try ChildProcess(BuiltProducts.server, arguments, environment: store.environment.merging(environment) { $1 }.merging(["PATH": "/usr/bin:/bin"]) { $1 },
                                       stdout: .pipe, stderr: .pipe)
        } catch {
            if database == nil { await owned.drop() }
            directory.remove()
            throw error
        }
        // Both are pipes, as asked just above.
        let output = process.standardOutput!
        let errors = PipeCollector(process.standardError!)
        let listening: (port: Int, output: String)
        do {
            listening = try await Self.readPort(from: output, process: process)
        } catch {
            // Exited (a port still held, a bad flag) or silent past the deadline: leave nothing behind.
            process.send(SIGKILL)
            await process.wait()
            if database == nil { await owned.drop() }
            directory.remove()
            throw error
        }
        self.directory = directory
        self.database = owned
        self.ownsDatabase = database == nil
        self.process = process
        self.errors = errors
        self.port = listening.port
        self.startupOutput = listening.output
    }

    /// The database a new server runs on: `location` as given, or a fresh one on this pass's
    /// backend (a SQLite file in the server's own folder, as it always was).
    private static func database(_ location: String?, in directory: TemporaryDirectory) async throws -> TestDatabase {
        if let location { return .existing(location) }
        switch TestBackend.current {
        case .sqlite: return .existing(directory.appending("notes.sqlite").path)
        case .postgres: return try await .make(on: .postgres)
        }
    }

    /// How long a server may take to print its address before the start counts as failed.
    static let startDeadline: Duration = .seconds(60)

    /// Reads stdout, however it is split into chunks, until the `listening on http(s)://HOST:PORT`
    /// line, and returns the port and what was read. A server that exits first, or stays silent past
    /// `startDeadline` (it is then killed, which ends the read), fails the start with its output.
    private static func readPort(from handle: FileHandle, process: ChildProcess) async throws -> (port: Int, output: String) {
        let watchdog = Task {
            try await Task.sleep(for: startDeadline)
            process.send(SIGKILL)
        }
        defer { watchdog.cancel() }
        return try await onOwnThread {
            var buffer = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { throw TestServerError.exitedEarly(output: buffer) }
                buffer += String(decoding: data, as: UTF8.self)
                if let range = buffer.range(of: #"listening on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    let digits = buffer[range].split(separator: ":").last.map(String.init) ?? ""
                    if let port = Int(digits) { return (port, buffer) }
                }
            }
        }
    }

    /// What the server wrote to stderr so far (its request log and messages).
    public var log: String {
        errors.text
    }

    /// Runs an admin command (`notes-server ARGS --db <this db>`), such as `user add`.
    @discardableResult
    public func admin(_ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.server, arguments + ["--db", databaseLocation], stdin: stdin)
    }

    /// Creates a user with `password` through the real admin command.
    public func addUser(_ username: String, password: String) async throws {
        let result = try await admin(["user", "add", username, "--password-stdin"], stdin: password + "\n")
        guard result.exitCode == 0 else { throw TestServerError.adminFailed(result.stderr) }
    }

    /// Sends SIGTERM, waits for a graceful exit, and returns the exit status. A server that has
    /// not exited 20 s later is killed, and the status says so (a test that checks it fails).
    @discardableResult
    public func stop() async -> Int32 {
        process.terminate()
        var status = await process.wait(timeout: .seconds(20))
        if status == nil {
            kill()
            status = await process.wait()
        }
        await errors.finished()
        if ownsDatabase { await database.drop() }
        directory.remove()
        return status ?? -1
    }

    /// Waits until the server process has exited (after `kill()` or a crash).
    @discardableResult
    public func waitForExit() async -> Int32 {
        let status = await process.wait()
        await errors.finished()  // its last lines (the shutdown message) read too
        return status
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    public func kill() {
        process.send(SIGKILL)
    }

    /// A server a test killed, or let go without `stop()`, leaves neither its process nor its
    /// folder behind (else every run would leave one empty folder in the temp folder per kill).
    deinit {
        process.send(SIGKILL)
        directory.remove()
    }
}

/// Runs `body` against a fresh `notes-server serve` with `extraArguments` and stops the server
/// afterwards, whatever happens (its temporary database goes with it): a server with no user and
/// no client, for the tests of starting and stopping it. A test with a user uses `LiveServer`.
public func withServer<T>(_ extraArguments: [String] = [], _ body: (TestServer) async throws -> T) async throws -> T {
    let server = try await TestServer(extraArguments: extraArguments)
    let result: T
    do {
        result = try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
    return result
}

public enum TestServerError: Error, CustomStringConvertible {
    case exitedEarly(output: String)
    case adminFailed(String)

    public var description: String {
        switch self {
        case .exitedEarly(let output): "notes-server exited before listening: \(output)"
        case .adminFailed(let message): "admin command failed: \(message)"
        }
    }
}
