extension SchemaVersion {
    /// Version 20 (PostgreSQL only): notes queued for search once per statement, from the statement's
    /// transition tables. SQLite's version 20 is empty: its queue is filled by the writing code
    /// (version 19) and its triggers.
    static let v20 = SchemaVersion(version: 20, name: "notes queued for search once per statement, not per row (PostgreSQL only)",
                                   sqlite: "", postgres: postgresQueueByStatement)

    /// Version 20 (PostgreSQL only): the row trigger that queued each written note for search
    /// (`notes_search_enqueue`, version 15) becomes two statement triggers that queue every note
    /// a statement inserted or changed in one `INSERT … SELECT` from the statement's transition
    /// tables.
    ///
    /// The row trigger ran its PL/pgSQL function, and through it a planned `INSERT`, once per row:
    /// on an upload, whose batches write their notes in one statement each, that was an eighth of
    /// PostgreSQL's CPU (a profile of a 10,000-note upload). A queue row is still written in the
    /// statement that writes the note, so a committed note is always queued or indexed.
    ///
    /// What is queued does not change: a note (`kind = 'note'`) inserted, or updated with its
    /// path, text, deletion or kind changed (the row trigger fired when any of the first three was
    /// assigned, even unchanged; an unchanged document needs no indexing). Transition tables
    /// cannot go with a column list or with two events, hence one trigger per event.
    private static let postgresQueueByStatement = """
        DROP TRIGGER notes_search_enqueue ON notes;
        DROP FUNCTION notes_search_enqueue();

        CREATE FUNCTION notes_search_enqueue_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at)
            SELECT nid, user_id, (extract(epoch FROM now()) * 1000)::bigint FROM inserted_notes WHERE kind = 'note'
            -- Already queued: lock the row (without changing it), so an indexer holding it is waited for.
            ON CONFLICT (nid) DO UPDATE SET queued_at = search_queue.queued_at WHERE false;
            RETURN NULL;
        END $$;
        CREATE TRIGGER notes_search_enqueue_inserted AFTER INSERT ON notes
            REFERENCING NEW TABLE AS inserted_notes
            FOR EACH STATEMENT EXECUTE FUNCTION notes_search_enqueue_inserted();

        CREATE FUNCTION notes_search_enqueue_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at)
            SELECT n.nid, n.user_id, (extract(epoch FROM now()) * 1000)::bigint
            FROM updated_notes n JOIN replaced_notes o ON o.nid = n.nid
            WHERE n.kind = 'note'
                AND (n.path <> o.path OR n.content <> o.content OR n.deleted <> o.deleted OR n.kind <> o.kind)
            ON CONFLICT (nid) DO UPDATE SET queued_at = search_queue.queued_at WHERE false;
            RETURN NULL;
        END $$;
        CREATE TRIGGER notes_search_enqueue_updated AFTER UPDATE ON notes
            REFERENCING OLD TABLE AS replaced_notes NEW TABLE AS updated_notes
            FOR EACH STATEMENT EXECUTE FUNCTION notes_search_enqueue_updated();

        """
}
