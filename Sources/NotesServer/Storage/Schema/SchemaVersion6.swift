extension SchemaVersion {
    /// Version 6 (SQLite only): search index changes queued and applied once per transaction.
    /// PostgreSQL's version 6 is empty: its search document was a generated column, kept in the
    /// writing statement.
    static let v6 = SchemaVersion(version: 6, name: "search index changes queued (SQLite only: PostgreSQL indexes in the writing statement)",
                                  sqlite: sqliteSearchQueue, postgres: "")

    /// The search index was kept by triggers writing into `notes_fts` on every note write. A
    /// statement that writes a virtual table runs under a statement savepoint, and FTS5 writes
    /// its pending index data to disk at every savepoint: each note became its own index
    /// segment, then merged, about a third of the server's time on an upload. The triggers now
    /// queue the change in a plain table, which was applied in one statement just before the
    /// transaction committed (until version 16 moved the indexing after the write): the index
    /// stayed as current as before (same transaction), built once per batch. Only a change of
    /// path, content or deletion touches the index.
    private static let sqliteSearchQueue = """
        DROP TRIGGER notes_fts_insert;
        DROP TRIGGER notes_fts_delete;
        DROP TRIGGER notes_fts_update;
        CREATE TABLE search_queue (
            seq INTEGER PRIMARY KEY,
            command TEXT,
            nid INTEGER NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL
        );
        CREATE TRIGGER notes_search_insert AFTER INSERT ON notes WHEN new.deleted = 0 BEGIN
            INSERT INTO search_queue (command, nid, path, content) VALUES (NULL, new.nid, new.path, new.content);
        END;
        CREATE TRIGGER notes_search_delete AFTER DELETE ON notes WHEN old.deleted = 0 BEGIN
            INSERT INTO search_queue (command, nid, path, content) VALUES ('delete', old.nid, old.path, old.content);
        END;
        CREATE TRIGGER notes_search_update AFTER UPDATE OF path, content, deleted ON notes BEGIN
            INSERT INTO search_queue (command, nid, path, content)
                SELECT 'delete', old.nid, old.path, old.content WHERE old.deleted = 0;
            INSERT INTO search_queue (command, nid, path, content)
                SELECT NULL, new.nid, new.path, new.content WHERE new.deleted = 0;
        END;

        """
}
