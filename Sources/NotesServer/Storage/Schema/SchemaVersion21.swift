extension SchemaVersion {
    /// Version 21: accounts unlocked by an administrator, read by the sign-in throttles.
    static let v21 = SchemaVersion(version: 21, name: "accounts unlocked by an administrator, read by the sign-in throttles",
                                   statements: loginUnlocks)

    /// `notes-server user unlock NAME` writes here, beside a running server whose sign-in
    /// throttle may keep its counts in memory: the throttle, before refusing an attempt on an
    /// account, reads the account's unlock time and forgets the attempts counted before it.
    /// `account` is the case-folded name (`UserStore.key`), as the throttle keys accounts. On
    /// PostgreSQL the throttle's counts live in `login_attempts`, but one rule for both backends
    /// keeps `user unlock` a single write.
    private static func loginUnlocks(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE login_unlocks (
            account TEXT PRIMARY KEY,
            unlocked_at \(sql.int64) NOT NULL
        )\(sql.withoutRowID);

        """
    }
}
