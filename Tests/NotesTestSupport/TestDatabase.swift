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

/// The throwaway PostgreSQL cluster the tests may use, as `./scripts/test` configures it
/// (`scripts/postgres-test-cluster start`, then `NOTES_TEST_POSTGRES_URL=postgresql://postgres@/postgres?host=DIR`).
///
/// NotesTestSupport does not link NotesServer (and its libpq): databases are made and dropped
/// with the cluster's own `psql`, run through `ProcessRunner`.
public enum TestPostgresCluster {
    private static let environment = ProcessInfo.processInfo.environment

    /// The cluster's URL (its `postgres` maintenance database), if one was given.
    public static let url: String? = environment["NOTES_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Set by CI: a missing cluster is then a failure, not a skipped test.
    public static let isRequired = environment["NOTES_REQUIRE_POSTGRES"] == "1"

    /// Whether tests that need PostgreSQL run (and fail for want of a cluster when required).
    public static let shouldRun = url != nil || isRequired

    /// Why a PostgreSQL test did not run.
    public static let skipReason = """
        PostgreSQL tests skipped: NOTES_TEST_POSTGRES_URL is not set (./scripts/test starts a throwaway \
        cluster with scripts/postgres-test-cluster and sets it; NOTES_REQUIRE_POSTGRES=1 makes this a failure)
        """

    /// The cluster's `psql`.
    static let psql = clientProgram("psql")

    /// The cluster's `pg_dump`.
    static let pgDump = clientProgram("pg_dump")

    /// A PostgreSQL client program: Debian keeps the real ones in a versioned directory (the
    /// newest wins), `/usr/bin/NAME` being a Perl wrapper that picks among them.
    private static func clientProgram(_ name: String) -> URL {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/\(name)") {
            return URL(fileURLWithPath: "\(root)/\(version)/bin/\(name)")
        }
        return URL(fileURLWithPath: "/usr/bin/\(name)")
    }

    /// The cluster's URL with its database replaced by `database` (every other part kept).
    public static func url(_ cluster: String, database: String) -> String {
        guard let scheme = cluster.range(of: "://") else { return cluster }
        let afterScheme = cluster[scheme.upperBound...]
        let queryStart = afterScheme.firstIndex(of: "?") ?? afterScheme.endIndex
        let authorityEnd = afterScheme[..<queryStart].firstIndex(of: "/") ?? queryStart
        return String(cluster[..<authorityEnd]) + "/" + database + String(afterScheme[queryStart...])
    }

    /// Runs one SQL statement on the cluster's maintenance database with `psql`.
    static func execute(_ sql: String, in cluster: String) async throws {
        // -X: no ~/.psqlrc; ON_ERROR_STOP: a failed statement is a non-zero exit.
        let result = try await ProcessRunner.run(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", cluster, "-c", sql])
        guard result.exitCode == 0 else {
            throw TestDatabaseError.psqlFailed(statement: sql, exitCode: result.exitCode, message: result.stderr)
        }
    }
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

    public var description: String {
        switch self {
        case .noCluster:
            "a PostgreSQL test database was asked for, but NOTES_TEST_POSTGRES_URL is not set (./scripts/test starts a cluster and sets it)"
        case .psqlFailed(let statement, let exitCode, let message):
            "psql exited \(exitCode) on \(statement): \(message)"
        }
    }
}
