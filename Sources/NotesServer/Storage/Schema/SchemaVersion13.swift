extension SchemaVersion {
    /// Version 13 (PostgreSQL only): attachment bytes in the database (`PostgresBlobStore`), so every
    /// server sees every content and an upload begun on one server resumes on another. SQLite's
    /// version 13 is empty: there the bytes stay in the content-addressed directory beside the file.
    static let v13 = SchemaVersion(version: 13, name: "attachment content in the database (PostgreSQL only: SQLite keeps a directory)",
                                   sqlite: "", postgres: postgresContentStorage)

    /// Two tables of bounded `BYTEA` rows (at most `PostgresBlobStore.pieceBytes` each, never
    /// one huge value), owned by `PostgresBlobStore`:
    /// - `upload_chunks`: the verified chunks of open uploads, each cut into pieces; a chunk's
    ///   pieces are inserted in one transaction, so a chunk is there whole or not at all. They
    ///   belong to their `uploads` row and go with it (purge, completion, account deletion).
    /// - `content_chunks`: stored contents, one row per piece in order. Written only by a
    ///   transaction that read exactly those bytes and checked their SHA-256 against `hash`
    ///   (`PostgresBlobStore.assemble`, `migrate-data`), and never changed afterwards.
    ///
    /// Two triggers keep the promise "a `contents` row never names missing bytes" inside the
    /// database, whatever the order of the statements around them: a `contents` row can only be
    /// inserted when its pieces are all there (their lengths add up to its size), and deleting
    /// the row deletes its pieces in the same transaction. Pieces with no row yet (an assembled
    /// content whose row did not commit) are removed after a day by the purge
    /// (`PostgresBlobStore.removeAbandonedFiles`).
    private static let postgresContentStorage = """
        CREATE TABLE upload_chunks (
            user_id BIGINT NOT NULL,
            hash TEXT NOT NULL,
            chunk INTEGER NOT NULL CHECK (chunk >= 0),
            piece INTEGER NOT NULL CHECK (piece >= 0),
            bytes BYTEA NOT NULL,
            PRIMARY KEY (user_id, hash, chunk, piece),
            FOREIGN KEY (user_id, hash) REFERENCES uploads (user_id, hash) ON DELETE CASCADE
        );

        CREATE TABLE content_chunks (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            piece INTEGER NOT NULL CHECK (piece >= 0),
            bytes BYTEA NOT NULL,
            -- When the pieces were written (ms): pieces no `contents` row names are swept a day later.
            stored_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, hash, piece)
        );
        CREATE INDEX content_chunks_unclaimed ON content_chunks (stored_at) WHERE piece = 0;

        \(contentsRequireBytes("CREATE FUNCTION"))
        CREATE TRIGGER contents_require_bytes AFTER INSERT ON contents
            FOR EACH ROW EXECUTE FUNCTION contents_require_bytes();

        CREATE FUNCTION contents_remove_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM content_chunks WHERE user_id = OLD.user_id AND hash = OLD.hash;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER contents_remove_bytes AFTER DELETE ON contents
            FOR EACH ROW EXECUTE FUNCTION contents_remove_bytes();

        """

    /// The trigger function that refuses a `contents` row whose pieces are not all in
    /// `content_chunks` (their lengths add up to its size). Version 25 replaces it with the same
    /// check behind an `exemption`: PL/pgSQL run first, which may return before the check.
    static func contentsRequireBytes(_ create: String, exemption: String = "") -> String {
        """
        \(create) contents_require_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            pieces BIGINT;
            stored NUMERIC;
        BEGIN
        \(exemption)    SELECT count(*), coalesce(sum(octet_length(bytes)), 0) INTO pieces, stored
                FROM content_chunks WHERE user_id = NEW.user_id AND hash = NEW.hash;
            IF pieces = 0 OR stored <> NEW.size THEN
                RAISE EXCEPTION 'the bytes of content % are not stored (% of % bytes)', NEW.hash, stored, NEW.size
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            RETURN NULL;
        END
        $$;
        """
    }
}
