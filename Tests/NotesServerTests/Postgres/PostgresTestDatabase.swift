import Foundation
import NotesTestSupport
import Testing
@testable import NotesServer

/// The PostgreSQL cluster the tests may use: `NOTES_TEST_POSTGRES_URL`, which `./scripts/test`
/// sets after starting a throwaway cluster (`scripts/postgres-test-cluster`).
///
/// Without it the PostgreSQL tests are skipped with `skipReason`, unless
/// `NOTES_REQUIRE_POSTGRES=1` (CI, `.ci/run`): then they run and fail for want of a cluster.
enum PostgresTestCluster {
    static let environment = ProcessInfo.processInfo.environment

    /// The cluster's URL (its `postgres` maintenance database), if one was given.
    static let url: String? = environment["NOTES_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Set by `.ci/run`: there a missing cluster is a failure, not a skipped suite.
    static let isRequired = environment["NOTES_REQUIRE_POSTGRES"] == "1"

    /// Whether the PostgreSQL tests run.
    static let shouldRun = url != nil || isRequired

    static let skipReason: Comment = """
        PostgreSQL tests skipped: NOTES_TEST_POSTGRES_URL is not set (./scripts/test starts a throwaway \
        cluster with scripts/postgres-test-cluster and sets it; NOTES_REQUIRE_POSTGRES=1 makes this a failure)
        """
}

/// A database of its own in the test cluster, so tests run in parallel without meeting:
/// `CREATE DATABASE t_<random>` on the way in, `DROP DATABASE ... WITH (FORCE)` on the way out.
struct PostgresTestDatabase: Sendable {
    /// The URL of this test's database.
    let url: PostgresURL
    let name: String

    /// Creates a fresh, empty database.
    /// - Throws: when no cluster is configured (so a required suite fails) or it cannot be reached.
    static func create() throws -> PostgresTestDatabase {
        guard let text = PostgresTestCluster.url else {
            throw PostgresTestSetupError("NOTES_REQUIRE_POSTGRES=1 but NOTES_TEST_POSTGRES_URL is not set: run ./scripts/test, which starts a cluster")
        }
        let cluster = try PostgresURL(text)
        let name = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let maintenance = try PostgresConnection(url: cluster)
        defer { maintenance.close() }
        // CREATE DATABASE takes no parameters; the name is made here of hex digits only.
        try maintenance.execute("CREATE DATABASE \(name)")
        return PostgresTestDatabase(url: cluster.with(database: name), name: name)
    }

    /// Drops the database, ending any connection still on it.
    func drop() {
        guard let text = PostgresTestCluster.url, let cluster = try? PostgresURL(text),
              let maintenance = try? PostgresConnection(url: cluster) else { return }
        defer { maintenance.close() }
        try? maintenance.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// A new connection to this database.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(url: url)
    }

    /// A new connection to this database, with the server's schema migrated.
    func migrated() throws -> PostgresConnection {
        let connection = try connect()
        try PostgresSchema.migrate(connection)
        return connection
    }
}

/// Runs `body` with a fresh database of its own, dropped afterwards.
func withPostgresDatabase<T>(_ body: (PostgresTestDatabase) async throws -> T) async throws -> T {
    let database = try PostgresTestDatabase.create()
    defer { database.drop() }
    return try await body(database)
}

struct PostgresTestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
