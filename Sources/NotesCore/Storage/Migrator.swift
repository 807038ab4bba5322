/// Versioned schema migrations, recorded in `PRAGMA user_version` and run at start.
///
/// Each migration runs in its own transaction together with the version bump, so a crash
/// leaves the schema at a whole version. A database newer than the code is refused.
public struct Migrator: Sendable {
    /// One schema step: its version (1, 2, …) and the SQL that moves the schema there.
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let sql: String

        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        // Strictly increasing rather than 1, 2, 3, …: parallel branches reserve numbers ahead of
        // their merge (attachments 8, publications 9, web sessions 10, sign-in 11).
        precondition(zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version } && (migrations.first?.version ?? 1) >= 1,
                     "migrations must be numbered in increasing order from 1")
        self.migrations = migrations
    }

    /// The newest version these migrations reach.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every migration newer than the database's version.
    /// - Throws: `DatabaseError` if a migration fails or the database is newer than this code.
    public func migrate(_ database: Database) throws {
        let current = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
        guard current <= latestVersion else {
            throw DatabaseError(code: 1, message: "the database is at schema version \(current), newer than this program knows (\(latestVersion)); upgrade the program")
        }
        for migration in migrations where migration.version > current {
            try database.transaction {
                try database.execute(migration.sql)
                // PRAGMA takes no bound parameters; the version is an integer we own.
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
