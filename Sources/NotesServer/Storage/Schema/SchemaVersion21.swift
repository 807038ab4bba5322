extension SchemaVersion {
    /// Version 21: accounts unlocked by an administrator, read by the sign-in throttles.
    static let v21 = SchemaVersion(
        version: 21, name: "accounts unlocked by an administrator, read by the sign-in throttles",
        sqlite: sqliteLoginUnlocks,
        postgres: postgresLoginUnlocks)

    /// `notes-server user unlock NAME` writes here, beside a running server whose sign-in
    /// throttle may keep its counts in memory: the throttle, before refusing an attempt on an
    /// account, reads the account's unlock time and forgets the attempts counted before it.
    /// `account` is the case-folded name (`UserStore.key`), as the throttle keys accounts.
    private static let sqliteLoginUnlocks = """
        CREATE TABLE login_unlocks (
            account TEXT PRIMARY KEY,
            unlocked_at INTEGER NOT NULL
        ) WITHOUT ROWID;

        """

    /// As on SQLite: the throttle's counts live in `login_attempts` here, but
    /// one rule for both backends keeps `user unlock` a single write.
    private static let postgresLoginUnlocks = """
        CREATE TABLE login_unlocks (
            account TEXT PRIMARY KEY,
            unlocked_at BIGINT NOT NULL
        );

        """
}
