extension ServerSchema {
    /// `notes-server user unlock NAME` writes here, beside a running server whose sign-in
    /// throttle may keep its counts in memory: the throttle, before refusing an attempt on an
    /// account, reads the account's unlock time and forgets the attempts counted before it.
    /// `account` is the case-folded name (`UserStore.key`), as the throttle keys accounts.
    static let loginUnlocksV21 = """
        CREATE TABLE login_unlocks (
            account TEXT PRIMARY KEY,
            unlocked_at INTEGER NOT NULL
        ) WITHOUT ROWID;

        """
}
