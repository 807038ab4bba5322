import Foundation

/// A PostgreSQL cluster of one test's own, made, restored and removed by
/// `scripts/postgres-test-cluster`: for a test that works on a whole cluster (a base backup
/// restored in place of its data), which the shared cluster of `TestPostgresCluster` must not be.
/// `stop()` removes it; call it on every path out of the test.
public struct DedicatedPostgresCluster: Sendable {
    /// The cluster's folder: its Unix socket, and its data under `data/`.
    public let directory: String

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-test-cluster")

    /// A new cluster, started, holding only PostgreSQL's own databases.
    public static func start() async throws -> DedicatedPostgresCluster {
        let result = try await ProcessRunner.run(script, ["start"])
        guard result.exitCode == 0 else { throw TestDatabaseError.clusterScriptFailed(command: "start", message: result.stderr) }
        return DedicatedPostgresCluster(directory: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// What `--db` takes for `database` in this cluster.
    public func url(database: String) -> String {
        "postgresql://postgres@/\(database)?host=\(directory)"
    }

    /// Creates the empty database `name` (letters, digits and underscores only).
    public func createDatabase(_ name: String) async throws {
        try await TestPostgresCluster.execute("CREATE DATABASE \(name)", in: url(database: "postgres"))
    }

    /// Stops the cluster, puts the base backup `backup` (a folder in pg_basebackup's plain format)
    /// in place of its data as README.md "Restore from a base backup" does, and starts it again
    /// on the same socket.
    public func restore(fromBaseBackup backup: String) async throws {
        let result = try await ProcessRunner.run(Self.script, ["restore", directory, backup])
        guard result.exitCode == 0 else { throw TestDatabaseError.clusterScriptFailed(command: "restore", message: result.stderr) }
    }

    /// Stops the cluster at once and removes its folder.
    public func stop() async {
        _ = try? await ProcessRunner.run(Self.script, ["stop", directory])
    }
}
