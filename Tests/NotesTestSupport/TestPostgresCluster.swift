import Foundation
import Testing

/// The throwaway PostgreSQL cluster the tests may use, the one place every test target asks:
/// `NOTES_TEST_POSTGRES_URL`, which `./scripts/test` sets after starting a cluster
/// (`scripts/postgres-test-cluster start`, then `NOTES_TEST_POSTGRES_URL=postgresql://postgres@/postgres?host=DIR`).
///
/// Without it the PostgreSQL tests are skipped with `skipReason`, unless
/// `NOTES_REQUIRE_POSTGRES=1` (CI, `.ci/run`): then they run and fail for want of a cluster.
///
/// NotesTestSupport does not link NotesServer (and its libpq): databases are made and dropped
/// here with the cluster's own `psql`, run through `ProcessRunner`.
public enum TestPostgresCluster {
    private static let environment = ProcessInfo.processInfo.environment

    /// The cluster's URL (its `postgres` maintenance database), if one was given.
    public static let url: String? = environment["NOTES_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Set by CI (`.ci/run`): a missing cluster is then a failure, not a skipped test.
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
    public static func clientProgram(_ name: String) -> URL {
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

extension Trait where Self == ConditionTrait {
    /// Runs the suite or test only where a PostgreSQL cluster is configured (or required):
    /// `@Suite("…", .needsPostgresCluster)`.
    public static var needsPostgresCluster: Self {
        .enabled(if: TestPostgresCluster.shouldRun, Comment(rawValue: TestPostgresCluster.skipReason))
    }
}
