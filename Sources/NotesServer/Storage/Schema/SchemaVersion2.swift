extension SchemaVersion {
    /// Version 2: a rotation's answer kept sealed for replays within the grace window.
    static let v2 = SchemaVersion(version: 2, name: "a rotation's answer kept sealed for replays within the grace", statements: sessionsSuccessor)

    /// The answer of a session's last rotation (its new refresh and access tokens), encrypted
    /// under a key derived from the refresh token it spent, so a replay of that token within the
    /// grace window gets the same answer. Cleared when the grace window ends.
    private static func sessionsSuccessor(_ sql: SQLDialect) -> String {
        """
        ALTER TABLE sessions ADD COLUMN successor_box \(sql.bytes);
        CREATE INDEX sessions_successor ON sessions(previous_rotated_at) WHERE successor_box IS NOT NULL;

        """
    }
}
