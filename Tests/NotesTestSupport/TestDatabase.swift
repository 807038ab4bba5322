import Foundation

/// Which database the server tests run on in this pass.
///
/// `./scripts/test` runs the server tests twice: once as they are (SQLite), once with
/// `NOTES_TEST_BACKEND=postgres`, where every `TestServer` (and the in-process `TestApp`) gets a
/// fresh database of its own in the throwaway cluster named by `NOTES_TEST_POSTGRES_URL`.
public enum TestBackend: String, Sendable {
    case sqlite
    case postgres

    /// The backend of this pass: `NOTES_TEST_BACKEND` (`sqlite`, the default, or `postgres`).
    /// Any other value falls back to SQLite; `TestPostgresCluster.url` then says what is missing.
    public static let current: TestBackend =
        ProcessInfo.processInfo.environment["NOTES_TEST_BACKEND"].flatMap { TestBackend(rawValue: $0.lowercased()) } ?? .sqlite

    /// Why a test that reads the SQLite file itself does not run on the PostgreSQL pass.
    public static let sqliteOnlyReason =
        "reads the server's SQLite file directly: runs on the SQLite pass; the PostgreSQL pass (NOTES_TEST_BACKEND=postgres) has no such file"
}

/// A throwaway database for one or more `notes-server` processes: a SQLite file in a temporary
/// folder, or a fresh database in the test cluster. `drop()` removes it.
///
/// Servers that share one (two servers behind a load balancer, a restart) are started with its
/// `location`; whoever made it drops it.
public struct TestDatabase: Sendable {
    /// What `--db` takes: the SQLite file's path, or the PostgreSQL database's URL.
    public let location: String
    /// The backend it lives on.
    public let backend: TestBackend
    /// The folder holding the SQLite file (and the server's other files); `nil` on PostgreSQL.
    private let directory: TemporaryDirectory?
    /// The PostgreSQL database's name and the cluster it lives in.
    private let postgres: (cluster: String, name: String)?

    /// The SQLite file, for tests that open it themselves; `nil` on PostgreSQL.
    public var sqlitePath: String? { backend == .sqlite ? location : nil }

    /// A new, empty database on `backend`.
    /// - Throws: `TestDatabaseError` when PostgreSQL is asked for and no cluster is configured,
    ///   or `psql` cannot create the database.
    public static func make(on backend: TestBackend = .current) async throws -> TestDatabase {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory("notes-db")
            return TestDatabase(location: directory.appending("notes.sqlite").path, backend: .sqlite,
                                directory: directory, postgres: nil)
        case .postgres:
            guard let cluster = TestPostgresCluster.url else { throw TestDatabaseError.noCluster }
            // A name of hex digits only: CREATE DATABASE takes no parameters, so nothing else goes in.
            let name = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            try await TestPostgresCluster.execute("CREATE DATABASE \(name)", in: cluster)
            return TestDatabase(location: TestPostgresCluster.url(cluster, database: name), backend: .postgres,
                                directory: nil, postgres: (cluster, name))
        }
    }

    /// A database someone else made and drops (a `--db` value: a path or a PostgreSQL URL);
    /// `drop()` leaves it alone.
    public static func existing(_ location: String) -> TestDatabase {
        TestDatabase(location: location, backend: location.contains("://") ? .postgres : .sqlite, directory: nil, postgres: nil)
    }

    /// Everything the database holds as bytes, for a test that proves a secret or a purged text
    /// is not among them: SQLite's file and its write-ahead log as they are on disk (deleted rows
    /// included until overwritten), or PostgreSQL's data as `pg_dump --data-only` writes it (every
    /// live row; the cluster's own files are PostgreSQL's business).
    public func storedBytes() async throws -> Data {
        switch backend {
        case .sqlite:
            return [location, location + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
        case .postgres:
            let result = try await ProcessRunner.run(TestPostgresCluster.pgDump, ["--data-only", "--no-owner", "-d", location])
            guard result.exitCode == 0 else {
                throw TestDatabaseError.psqlFailed(statement: "pg_dump", exitCode: result.exitCode, message: result.stderr)
            }
            return Data(result.stdout.utf8)
        }
    }

    /// Removes the database: the SQLite folder, or `DROP DATABASE ... WITH (FORCE)`, which ends
    /// any connection a killed server left behind. Best effort: a leftover dies with the cluster.
    public func drop() async {
        directory?.remove()
        if let postgres {
            try? await TestPostgresCluster.execute("DROP DATABASE IF EXISTS \(postgres.name) WITH (FORCE)", in: postgres.cluster)
        }
    }
}

public enum TestDatabaseError: Error, CustomStringConvertible {
    case noCluster
    case psqlFailed(statement: String, exitCode: Int32, message: String)
    case clusterScriptFailed(command: String, message: String)

    public var description: String {
        switch self {
        case .noCluster:
            "a PostgreSQL test database was asked for, but NOTES_TEST_POSTGRES_URL is not set (./scripts/test starts a cluster and sets it)"
        case .psqlFailed(let statement, let exitCode, let message):
            "psql exited \(exitCode) on \(statement): \(message)"
        case .clusterScriptFailed(let command, let message):
            "scripts/postgres-test-cluster \(command) failed: \(message)"
        }
    }
}
