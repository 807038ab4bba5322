import NotesCore

/// The server's database schema on SQLite, as versioned migrations run at every start: the
/// SQLite statements of each `SchemaVersion`, recorded in `PRAGMA user_version`.
///
/// Times are integer milliseconds since the Unix epoch (UTC). Secrets are never stored: token
/// columns hold SHA-256 digests, passwords argon2id hashes.
enum ServerSchema {
    static let migrator = Migrator(SchemaVersion.migrations(\.sqlite))
}
