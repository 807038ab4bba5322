extension SchemaVersion {
    /// Version 15 (PostgreSQL only): search documents indexed after the write, from a queue of changed
    /// notes. SQLite's version 15 is empty: it has queued its search index changes since version 6.
    static let v15 = SchemaVersion(version: 15, name: "search documents indexed after the write, from a queue of changed notes (PostgreSQL only: SQLite queues since version 6)",
                                   sqlite: "", postgres: postgresSearchTable)

    /// Version 15: the search document leaves the `notes` row for a table of its own, filled
    /// after the write by `PostgresSearchIndexer` from a queue of changed notes.
    ///
    /// Why: the generated column made every note write tokenise the note and update a GIN
    /// index inside the request (half of PostgreSQL's work per note of an upload, measured).
    /// From this version a write only queues the note's id (the trigger, one short insert); the document is
    /// made in batches, mostly after the requests were answered (`PostgresSearchIndexer`).
    ///
    /// - `note_search` holds the document of each live note (`kind = 'note'`) indexed so far.
    /// - `search_queue` holds the notes written since they were last indexed, at most one row
    ///   per note, and when each was first queued (milliseconds since the epoch, the database's
    ///   clock). The trigger fills it in the writing statement's own transaction, so a committed
    ///   change is always either indexed or queued, never neither; existing notes are queued here.
    /// - The trigger's `ON CONFLICT` locks a note's queue row even when it is there already:
    ///   an indexer that took the row first is waited for (and the note queued again after it),
    ///   one that comes second skips it (`SKIP LOCKED`), so no write can fall between an
    ///   indexer's read of the note and its removal of the queue row.
    /// Neither table refers to `notes`: a foreign key would make each write check it and every
    /// note deletion wait on an indexer's rows. The indexer drops the document of a note gone or
    /// deleted; an account's deletion drops its rows (`NoteStore.deleteAll`).
    private static let postgresSearchTable = """
        ALTER TABLE notes DROP COLUMN search;

        CREATE TABLE note_search (
            nid BIGINT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            search tsvector NOT NULL
        );
        -- One index answers "this user's notes with these words" (btree_gin adds user_id).
        CREATE INDEX note_search_words ON note_search USING gin (user_id, search);

        CREATE TABLE search_queue (
            nid BIGINT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            queued_at BIGINT NOT NULL
        );
        CREATE INDEX search_queue_user ON search_queue (user_id);

        CREATE FUNCTION notes_search_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at)
            VALUES (NEW.nid, NEW.user_id, (extract(epoch FROM now()) * 1000)::bigint)
            -- Already queued: lock the row (without changing it), so an indexer holding it is waited for.
            ON CONFLICT (nid) DO UPDATE SET queued_at = search_queue.queued_at WHERE false;
            RETURN NULL;
        END $$;
        CREATE TRIGGER notes_search_enqueue AFTER INSERT OR UPDATE OF path, content, deleted ON notes
            FOR EACH ROW WHEN (NEW.kind = 'note') EXECUTE FUNCTION notes_search_enqueue();

        INSERT INTO search_queue (nid, user_id, queued_at)
        SELECT nid, user_id, 0 FROM notes WHERE deleted = 0 AND kind = 'note';

        """
}
