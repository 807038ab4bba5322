import Foundation
import NotesTestSupport
import Testing
@testable import NotesServer

/// A database of its own in the test cluster, so tests run in parallel without meeting:
/// `CREATE DATABASE t_<random>` on the way in, `DROP DATABASE ... WITH (FORCE)` on the way out.
struct PostgresTestDatabase: Sendable {
    /// The URL of this test's database.
    let url: PostgresURL
    let name: String

    /// Creates a fresh, empty database.
    /// - Throws: when no cluster is configured (so a required suite fails) or it cannot be reached.
    static func create() throws -> PostgresTestDatabase {
        guard let text = TestPostgresCluster.url else {
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
        guard let text = TestPostgresCluster.url, let cluster = try? PostgresURL(text),
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
