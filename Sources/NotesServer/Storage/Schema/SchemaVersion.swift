import NotesCore

/// One version of the server's schema, in both dialects: the statements that move a SQLite
/// database (`ServerSchema`) and a PostgreSQL database (`PostgresSchema`) from the version
/// before it to this one.
///
/// A version number means the same schema on both backends (same tables, columns and meaning,
/// so `migrate-data` can match them). A table is described once, in portable column types that
/// each dialect spells its own way (`BIGINT` identities for SQLite's rowids, `BYTEA` for blobs:
/// `SQLDialect+ColumnTypes.swift`); only what truly differs (a trigger's language, a search
/// column) is written per dialect. Where one backend needs machinery the other does not (a
/// search queue, compression, shared counters), the other's statements are empty and the
/// version's description says why. Each version lives in its own file, `SchemaVersionN.swift`.
///
/// The statements are part of what every existing database was migrated with: a version, once
/// released, is never edited; a change of schema is a new version.
struct SchemaVersion: Sendable {
    /// The version number (1, 2, …), recorded by each backend once the version is applied.
    let version: Int
    /// What the version brings, recorded beside its number in PostgreSQL's `schema_migrations`.
    let name: String
    /// The statements on SQLite; empty when the version changes nothing there.
    let sqlite: String
    /// The statements on PostgreSQL; empty when the version changes nothing there.
    let postgres: String

    init(version: Int, name: String, sqlite: String, postgres: String) {
        self.version = version
        self.name = name
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// A version whose statements are the same in both dialects.
    init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name, sqlite: sql, postgres: sql)
    }

    /// A version whose statements are written once, with the column types each dialect spells
    /// its own way (`SQLDialect+ColumnTypes.swift`) filled in for each.
    init(version: Int, name: String, statements: (SQLDialect) -> String) {
        self.init(version: version, name: name, sqlite: statements(.sqlite), postgres: statements(.postgres))
    }

    /// Every version, oldest first: the one list both backends migrate by.
    static let all: [SchemaVersion] = [
        v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23, v24, v25, v26,
    ]

    /// The migrations of one dialect: `\.sqlite` or `\.postgres`.
    static func migrations(_ dialect: KeyPath<SchemaVersion, String>) -> [Migrator.Migration] {
        all.map { Migrator.Migration(version: $0.version, name: $0.name, sql: $0[keyPath: dialect]) }
    }
}
