extension ServerSchema {
    /// Published notes: a note readable by anyone holding an unguessable link (`/p/<token>`).
    ///
    /// Only the SHA-256 digest of the token is stored, as for bearer tokens. A note has at most
    /// one live (unrevoked) publication; publishing it again replaces the old link. The
    /// publication points at the note's row, so it follows renames, and ends with the note:
    /// the trigger revokes it when the note becomes a tombstone (deleted, or purged, which
    /// deletes first), at the deletion's own time, and removing the row (a purged tombstone, a
    /// deleted account) removes it. A restored note is not published again by itself.
    static let publicationsV9 = """
        CREATE TABLE publications (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            nid INTEGER NOT NULL REFERENCES notes(nid) ON DELETE CASCADE,
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            revoked_at INTEGER,
            indexable INTEGER NOT NULL DEFAULT 0
        );
        CREATE UNIQUE INDEX publications_live_note ON publications(nid) WHERE revoked_at IS NULL;
        CREATE INDEX publications_user ON publications(user_id);
        CREATE TRIGGER publications_end_with_note AFTER UPDATE OF deleted ON notes
        WHEN new.deleted = 1 AND old.deleted = 0 BEGIN
            UPDATE publications SET revoked_at = new.updated_at WHERE nid = new.nid AND revoked_at IS NULL;
        END;

        """
}
