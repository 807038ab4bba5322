extension SchemaVersion {
    /// Version 17: a note's text is stored once per write, not twice.
    static let v17 = SchemaVersion(version: 17, name: "a revision's text stored once: NULL in the latest revision means the note's current text",
                                   sqlite: sqliteRevisionsTextOnce, postgres: postgresRevisionsTextOnce)

    /// Version 17: `revisions.content` may be NULL, meaning "the note's current text"
    /// (`notes.content`). Every write stored its text twice, in the note's row and in the
    /// revision it appended: on a 10,000-note upload the two tables were three quarters of the
    /// pages written to the WAL, each row of ~2.4 KB filling a page alone, twice. A write now
    /// appends its revision without the text; the next write to the note (an edit, a rename,
    /// a deletion) first copies the note's text into that revision, which only then stops being
    /// the latest (`NoteStore.keepText`). So only an entry's latest revision can be NULL, and
    /// `NoteStore.revision` reads `coalesce(revisions.content, notes.content)`.
    ///
    /// SQLite cannot drop a NOT NULL constraint in place: the table is made again as version 16
    /// made it, with the constraint gone, and every row copied unchanged (their text stays
    /// valid: a revision that holds its text is read as it is).
    private static let sqliteRevisionsTextOnce = sqliteRevisionsRemade(
        as: "revisions_v17", content: """
                -- NULL: the note's current text (notes.content); only the note's latest revision.
                content TEXT,
            """,
        copiedInOrderOf: "rowid")

    /// On PostgreSQL the constraint is dropped in place (`sqliteRevisionsTextOnce` says why and
    /// how the invariant is kept). Every row written before stays as it is.
    private static let postgresRevisionsTextOnce = """
        ALTER TABLE revisions ALTER COLUMN content DROP NOT NULL;

        """
}
