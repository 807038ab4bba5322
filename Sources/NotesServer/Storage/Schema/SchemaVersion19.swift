extension SchemaVersion {
    /// Version 19 (SQLite only): a new note is queued for search by the statement after its insert, not
    /// by a trigger. PostgreSQL's version 19 is empty: its queue is filled in the writing statement
    /// (version 15).
    static let v19 = SchemaVersion(version: 19, name: "a new note queued for search by the writing code, not a trigger (SQLite only)",
                                   sqlite: sqliteQueueByStatement, postgres: "")

    /// Version 19 (SQLite only): the `AFTER INSERT` trigger that queued every new note for search
    /// goes; `NoteStore` queues the note itself, in the next statement of the same transaction
    /// (`SQLiteSearchIndex.queueInserted`), so a committed note is still always queued or indexed.
    ///
    /// A trigger makes SQLite run its statement under a statement journal (it writes two tables,
    /// so an error half-way must undo only that statement): every page the insert touched (the
    /// notes leaf, its four indexes, the queue) was copied there first, and once a statement's
    /// copies passed 64 KiB the journal became a temporary file, written with two system calls a
    /// page for the rest of the transaction. On a 10,000-note upload that was about 26 MB written
    /// to a file nobody reads and 12,000 system calls; a plain one-row insert needs no journal.
    /// The update and delete triggers stay: they keep the text the index holds, and no upload runs them.
    private static let sqliteQueueByStatement = """
        DROP TRIGGER notes_search_insert;

        """
}
