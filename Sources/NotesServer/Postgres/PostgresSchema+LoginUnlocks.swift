extension PostgresSchema {
    /// As `ServerSchema.loginUnlocksV21`: the throttle's counts live in `login_attempts` here, but
    /// one rule for both backends keeps `user unlock` a single write.
    static let loginUnlocksV21 = """
        CREATE TABLE login_unlocks (
            account TEXT PRIMARY KEY,
            unlocked_at BIGINT NOT NULL
        );

        """
}
