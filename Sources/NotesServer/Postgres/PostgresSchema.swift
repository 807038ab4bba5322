import NotesCore

/// The server's schema on PostgreSQL, as versioned migrations recorded in `schema_migrations`:
/// the PostgreSQL statements of each `SchemaVersion`.
///
/// A version number means the same schema as on SQLite (same tables, columns and meaning, so
/// `migrate-data` can match them), written in PostgreSQL's types: `BIGINT` identities for
/// SQLite's rowids, `BYTEA` for blobs, integer `0`/`1` flags kept as `INTEGER` so the stores'
/// statements (`deleted = 0`) run unchanged. Times stay integer milliseconds since the Unix epoch.
///
/// Where SQLite needs machinery, PostgreSQL has its own: search was a generated `tsvector` column
/// (version 1, queried as `PostgresSchema+Search.swift` says), so migration 6 (SQLite's search
/// queue) is empty here, and from version 15 a table of documents filled after the write from a
/// queue of its own (`PostgresSearchIndexer`); the login throttle, in memory on SQLite, is a
/// table from version 1 so every server shares it.
///
/// Several servers may start at once against one database: `migrate` takes a transaction-scoped
/// advisory lock first, so one of them migrates and the others, once it committed, find nothing
/// left to do.
enum PostgresSchema {
    static let migrations = SchemaVersion.migrations(\.postgres)

    /// The newest version these migrations reach.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The advisory lock migrations run under: any fixed number other programs sharing the
    /// database are unlikely to pick (the bytes of "notesmig").
    static let migrationLockKey: Int64 = 0x6E6F_7465_736D_6967

    /// Applies every migration newer than the database's version, all in one transaction.
    ///
    /// The transaction is `READ COMMITTED` on purpose: the version is read *after* the advisory
    /// lock is granted, and at that isolation each statement sees what committed before it, so
    /// a server that waited for another's migrations sees them done. (Under `REPEATABLE READ`
    /// the snapshot would date from before the wait, and it would try to migrate again.)
    /// - Throws: `PostgresError` when a migration fails (nothing of it stays: DDL is
    ///   transactional in PostgreSQL), or when the database is newer than this program.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.transaction(isolation: .readCommitted) {
            try connection.run("SELECT pg_advisory_xact_lock(?)", migrationLockKey)
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let current = Int(try connection.scalarInt("SELECT coalesce(max(version), 0) FROM schema_migrations") ?? 0)
            guard current <= latestVersion else {
                throw PostgresError(message: "the database is at schema version \(current), newer than this program knows (\(latestVersion)); upgrade the program")
            }
            for migration in migrations where migration.version > current {
                if !migration.sql.isEmpty { try connection.execute(migration.sql) }
                try connection.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
            }
        }
    }

    /// The schema version the database is at (0: none yet).
    static func version(_ connection: PostgresConnection) throws -> Int {
        let exists = try connection.scalarInt("SELECT count(*) FROM pg_tables WHERE tablename = 'schema_migrations' AND schemaname = current_schema()") ?? 0
        guard exists > 0 else { return 0 }
        return Int(try connection.scalarInt("SELECT coalesce(max(version), 0) FROM schema_migrations") ?? 0)
    }
}
