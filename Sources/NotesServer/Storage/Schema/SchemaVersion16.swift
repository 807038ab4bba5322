extension SchemaVersion {
    /// Version 16 (SQLite only): two changes that take work off every note write (measured on a
    /// 10,000-note upload). PostgreSQL's version 16 is empty: it indexes after the write since
    /// version 15, and its revisions table has no `WITHOUT ROWID`.
    static let v16 = SchemaVersion(version: 16, name: "search index made after the write from a queue of changed notes; revisions in a rowid table (SQLite only)",
                                   sqlite: sqliteSearchAfterWrite + sqliteRevisionsRowid, postgres: "")

    /// Version 16: the full-text index is made after the write, not in it.
    ///
    /// Up to version 15 the queue of version 6 is applied to `notes_fts` just before every
    /// commit, so each upload request tokenises its notes and writes FTS5 segments inside the
    /// transaction the client waits for (about a third of the server's CPU on an upload,
    /// measured). From this version a write only queues the note's id, in the writing statement's own transaction (a committed
    /// change is always indexed or queued, never neither, a crash included), and
    /// `SQLiteSearchIndexer` indexes the queue in batches once the writes pause, as
    /// `PostgresSearchIndexer` does on PostgreSQL since version 15. A search first indexes its
    /// user's queued notes (`SQLiteSearchIndex.indexQueued(_:userID:)`), so its answer is as
    /// current as the acknowledged writes.
    ///
    /// `notes_fts` keeps its content in `notes` (an external-content table), and FTS5 removes a
    /// row from the index only when given the very text it indexed. That text is the note's row
    /// as it was when the note was first queued: the index does not change while a note waits.
    /// So the queue row keeps it (`old_path`, `old_content`, NULL when the index holds nothing
    /// for the note), taken from the row the first write replaces; later writes to a queued
    /// note leave the queue row as it is (`DO NOTHING`). A new note queues only its id.
    ///
    /// The queue's rows were applied before each commit, so the old queue is empty in any
    /// committed database; should one hold rows, they are applied first.
    private static let sqliteSearchAfterWrite = """
        INSERT INTO notes_fts (notes_fts, rowid, path, content) SELECT command, nid, path, content FROM search_queue ORDER BY seq;
        DROP TRIGGER notes_search_insert;
        DROP TRIGGER notes_search_delete;
        DROP TRIGGER notes_search_update;
        DROP TABLE search_queue;
        CREATE TABLE search_queue (
            nid INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL,
            -- When the note was first queued, milliseconds since the epoch (the indexer's pause and lag).
            queued_at INTEGER NOT NULL,
            -- What notes_fts holds for the note: NULL when nothing.
            old_path TEXT,
            old_content TEXT
        );
        CREATE TRIGGER notes_search_insert AFTER INSERT ON notes WHEN new.deleted = 0 BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at) VALUES (new.nid, new.user_id, \(queueTime))
            ON CONFLICT (nid) DO NOTHING;
        END;
        CREATE TRIGGER notes_search_delete AFTER DELETE ON notes WHEN old.deleted = 0 BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at, old_path, old_content)
            VALUES (old.nid, old.user_id, \(queueTime), old.path, old.content)
            ON CONFLICT (nid) DO NOTHING;
        END;
        CREATE TRIGGER notes_search_update AFTER UPDATE OF path, content, deleted ON notes
            WHEN (old.deleted = 0 OR new.deleted = 0)
                AND (old.path IS NOT new.path OR old.content IS NOT new.content OR old.deleted IS NOT new.deleted) BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at, old_path, old_content)
            VALUES (new.nid, new.user_id, \(queueTime),
                    CASE WHEN old.deleted = 0 THEN old.path END, CASE WHEN old.deleted = 0 THEN old.content END)
            ON CONFLICT (nid) DO NOTHING;
        END;

        """

    /// The time a trigger queues a note at: milliseconds since the epoch, SQLite's clock.
    private static let queueTime = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"

    /// Version 16: `revisions` becomes an ordinary rowid table with a unique index on its old
    /// primary key. As a `WITHOUT ROWID` table keyed on a random note id, every appended
    /// revision (with its whole text) went into the middle of the table's b-tree, splitting and
    /// rewriting full pages; as a rowid table the row is appended at the end and only the short key goes
    /// into the middle of the index (about 0.3 s less per 10,000 uploaded notes, measured).
    /// Columns, their order and meaning are unchanged; every row is copied.
    private static let sqliteRevisionsRowid = sqliteRevisionsRemade(
        as: "revisions_v16", content: "    content TEXT NOT NULL,", copiedInOrderOf: "user_id, rev")

    /// The statements that make SQLite's `revisions` again (it cannot change a column in place)
    /// as the rowid table of version 16, with `content` (the column's line or lines) as its text
    /// column: a new table `table`, every row copied in the order `order`, the old table
    /// dropped, the new one renamed to `revisions`, and its indexes.
    static func sqliteRevisionsRemade(as table: String, content: String, copiedInOrderOf order: String) -> String {
        """
        CREATE TABLE \(table) (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            note_id TEXT NOT NULL,
            rev INTEGER NOT NULL,
            path TEXT NOT NULL,
        \(content)
            hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            device TEXT,
            kind TEXT NOT NULL DEFAULT 'note' CHECK (kind IN ('note', 'attachment')),
            media_type TEXT
        );
        INSERT INTO \(table) (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
            SELECT user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type
            FROM revisions ORDER BY \(order);
        DROP TABLE revisions;
        ALTER TABLE \(table) RENAME TO revisions;
        CREATE UNIQUE INDEX revisions_key ON revisions(user_id, note_id, rev);
        CREATE INDEX revisions_attachment_hash ON revisions(user_id, hash) WHERE kind = 'attachment';

        """
    }
}
