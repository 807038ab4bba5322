extension SchemaVersion {
    /// Version 8: attachments (entry kinds, media types, contents, holds and uploads).
    static let v8 = SchemaVersion(
        version: 8, name: "attachments: entry kinds, media types, contents, holds and uploads",
        sqlite: sqliteAttachments,
        postgres: postgresAttachments)

    /// Attachments: notes and attachments are one kind of row, *entries*, so ids,
    /// paths (unique across both kinds under case folding), revs, the changes feed, revisions,
    /// tombstones and batches serve both. An attachment row keeps `content` empty, `hash` = the
    /// SHA-256 of its bytes, `size` = their count, and `media_type` from the fixed table.
    ///
    /// The bytes live in the content store (`BlobStore`), once per user and hash:
    /// - `contents`: what each user's store holds (its size counts toward the quota);
    /// - `content_holds`: contents a client was just told are present, kept from purging until
    ///   `expires_at` so the batch that relies on them can commit;
    /// - `uploads`: open resumable uploads (their declared size is reserved against the quota;
    ///   the chunks themselves are files in the store).
    private static let sqliteAttachments = """
        ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE notes ADD COLUMN media_type TEXT;
        ALTER TABLE revisions ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE revisions ADD COLUMN media_type TEXT;
        CREATE INDEX notes_attachment_hash ON notes(user_id, hash) WHERE kind = 'attachment';
        CREATE INDEX revisions_attachment_hash ON revisions(user_id, hash) WHERE kind = 'attachment';

        CREATE TABLE contents (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, hash)
        ) WITHOUT ROWID;

        CREATE TABLE content_holds (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, hash)
        ) WITHOUT ROWID;

        CREATE TABLE uploads (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            chunk_size INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, hash)
        ) WITHOUT ROWID;

        """

    /// Attachments: entry kinds and media types on notes and revisions, contents stored once per
    /// user, holds that keep content a client was told about, and open uploads. The search column
    /// is made again so that it covers notes only, as SQLite's index does.
    private static let postgresAttachments = """
        ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE notes ADD COLUMN media_type TEXT;
        ALTER TABLE revisions ADD COLUMN kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment'));
        ALTER TABLE revisions ADD COLUMN media_type TEXT;
        CREATE INDEX notes_attachment_hash ON notes(user_id, hash) WHERE kind = 'attachment';
        CREATE INDEX revisions_attachment_hash ON revisions(user_id, hash) WHERE kind = 'attachment';

        ALTER TABLE notes DROP COLUMN search;
        ALTER TABLE notes ADD COLUMN search tsvector GENERATED ALWAYS AS (
            CASE WHEN deleted = 0 AND kind = 'note' THEN to_tsvector('notes_search', notes_search_text(path || ' ' || content)) END
        ) STORED;
        CREATE INDEX notes_search ON notes USING gin (user_id, search) WHERE deleted = 0;

        CREATE TABLE contents (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, hash)
        );

        CREATE TABLE content_holds (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            expires_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, hash)
        );

        CREATE TABLE uploads (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            size BIGINT NOT NULL,
            chunk_size BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, hash)
        );

        """
}
