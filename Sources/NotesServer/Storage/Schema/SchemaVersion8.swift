extension SchemaVersion {
    /// Version 8: attachments (entry kinds, media types, contents, holds and uploads).
    static let v8 = SchemaVersion(version: 8, name: "attachments: entry kinds, media types, contents, holds and uploads",
                                  sqlite: entryKinds + contentTables(.sqlite),
                                  postgres: entryKinds + postgresNoteSearchOfNotes + contentTables(.postgres))

    /// Attachments: notes and attachments are one kind of row, *entries*, so ids,
    /// paths (unique across both kinds under case folding), revs, the changes feed, revisions,
    /// tombstones and batches serve both. An attachment row keeps `content` empty, `hash` = the
    /// SHA-256 of its bytes, `size` = their count, and `media_type` from the fixed table.
    private static let entryKinds = """
        ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE notes ADD COLUMN media_type TEXT;
        ALTER TABLE revisions ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE revisions ADD COLUMN media_type TEXT;
        CREATE INDEX notes_attachment_hash ON notes(user_id, hash) WHERE kind = 'attachment';
        CREATE INDEX revisions_attachment_hash ON revisions(user_id, hash) WHERE kind = 'attachment';

        """

    /// PostgreSQL's search column is made again so that it covers notes only, as SQLite's index does.
    private static let postgresNoteSearchOfNotes = """

        ALTER TABLE notes DROP COLUMN search;
        ALTER TABLE notes ADD COLUMN search tsvector GENERATED ALWAYS AS (
            CASE WHEN deleted = 0 AND kind = 'note' THEN to_tsvector('notes_search', notes_search_text(path || ' ' || content)) END
        ) STORED;
        CREATE INDEX notes_search ON notes USING gin (user_id, search) WHERE deleted = 0;

        """

    /// The bytes live in the content store (`BlobStore`), once per user and hash:
    /// - `contents`: what each user's store holds (its size counts toward the quota);
    /// - `content_holds`: contents a client was just told are present, kept from purging until
    ///   `expires_at` so the batch that relies on them can commit;
    /// - `uploads`: open resumable uploads (their declared size is reserved against the quota;
    ///   the chunks themselves are files in the store, or rows on PostgreSQL from version 13).
    private static func contentTables(_ sql: SQLDialect) -> String {
        """

        CREATE TABLE contents (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size \(sql.int64) NOT NULL,
            created_at \(sql.int64) NOT NULL,
            PRIMARY KEY (user_id, hash)
        )\(sql.withoutRowID);

        CREATE TABLE content_holds (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            expires_at \(sql.int64) NOT NULL,
            PRIMARY KEY (user_id, hash)
        )\(sql.withoutRowID);

        CREATE TABLE uploads (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size \(sql.int64) NOT NULL,
            chunk_size \(sql.int64) NOT NULL,
            created_at \(sql.int64) NOT NULL,
            updated_at \(sql.int64) NOT NULL,
            PRIMARY KEY (user_id, hash)
        )\(sql.withoutRowID);

        """
    }
}
