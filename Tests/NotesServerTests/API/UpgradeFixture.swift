import NotesCore
import NotesTestSupport
@testable import NotesServer

/// What the schema-upgrade tests share: a database as an older server made it, and the fixture's
/// user written straight into it.
enum UpgradeFixture {
    /// The server's migrations up to `version` only.
    static func migrator(through version: Int) -> Migrator {
        Migrator(Array(ServerSchema.migrator.migrations.prefix { $0.version <= version }))
    }

    /// Adds `TestAccount`, with `lastRev` as its last revision.
    static func insertUser(_ db: some SQLConnection, lastRev: Int64) throws {
        try db.run("INSERT INTO users (username, username_key, password_hash, created_at, last_rev) VALUES (?, ?, ?, 0, ?)",
                   TestAccount.username, TestAccount.username.lowercased(), try PasswordHash.make(TestAccount.password), lastRev)
    }
}
