extension SchemaVersion {
    /// Version 4: usernames looked up case-folded (the same statements on both backends).
    static let v4 = SchemaVersion(version: 4, name: "usernames looked up case-folded, Unicode included", sql: usernameKey)

    /// The case-folded NFC username (`UserStore.key`), unique: `COLLATE NOCASE` folds ASCII
    /// only, and Unicode names are allowed from this version. Names before it are ASCII, whose
    /// key is SQLite's `lower()`.
    private static let usernameKey = """
        ALTER TABLE users ADD COLUMN username_key TEXT;
        UPDATE users SET username_key = lower(username);
        CREATE UNIQUE INDEX users_username_key ON users(username_key);

        """
}
