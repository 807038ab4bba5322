extension ServerSchema {
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
    static let attachmentsV8 = """
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
}
