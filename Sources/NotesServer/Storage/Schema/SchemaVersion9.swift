extension SchemaVersion {
    /// Version 9: published notes, readable by an unguessable link.
    static let v9 = SchemaVersion(version: 9, name: "published notes, readable by an unguessable link",
                                  sqlite: publications(.sqlite) + sqlitePublicationsEndWithNote,
                                  postgres: publications(.postgres) + postgresPublicationsEndWithNote)

    /// Published notes: a note readable by anyone holding an unguessable link (`/p/<token>`).
    ///
    /// Only the SHA-256 digest of the token is stored, as for bearer tokens. A note has at most
    /// one live (unrevoked) publication; publishing it again replaces the old link. The
    /// publication points at the note's row, so it follows renames, and ends with the note:
    /// the trigger revokes it when the note becomes a tombstone (deleted, or purged, which
    /// deletes first), at the deletion's own time, and removing the row (a purged tombstone, a
    /// deleted account) removes it. A restored note is not published again by itself.
    private static func publications(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE publications (
            id \(sql.rowID),
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            nid \(sql.int64) NOT NULL REFERENCES notes(nid) ON DELETE CASCADE,
            token_hash \(sql.bytes) NOT NULL UNIQUE,
            created_at \(sql.int64) NOT NULL,
            expires_at \(sql.int64),
            revoked_at \(sql.int64),
            indexable INTEGER NOT NULL DEFAULT 0
        );
        CREATE UNIQUE INDEX publications_live_note ON publications(nid) WHERE revoked_at IS NULL;
        CREATE INDEX publications_user ON publications(user_id);

        """
    }

    /// A note's deletion revokes its live publication: a trigger on each backend, in its own
    /// trigger language.
    private static let sqlitePublicationsEndWithNote = """
        CREATE TRIGGER publications_end_with_note AFTER UPDATE OF deleted ON notes
        WHEN new.deleted = 1 AND old.deleted = 0 BEGIN
            UPDATE publications SET revoked_at = new.updated_at WHERE nid = new.nid AND revoked_at IS NULL;
        END;

        """

    private static let postgresPublicationsEndWithNote = """
        CREATE FUNCTION publications_end_with_note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE publications SET revoked_at = NEW.updated_at WHERE nid = NEW.nid AND revoked_at IS NULL;
            RETURN NEW;
        END $$;
        CREATE TRIGGER publications_end_with_note AFTER UPDATE OF deleted ON notes
            FOR EACH ROW WHEN (NEW.deleted = 1 AND OLD.deleted = 0) EXECUTE FUNCTION publications_end_with_note();

        """
}
