// Version 17 on PostgreSQL, as on SQLite (`ServerSchema+TextOnce.swift`).
extension PostgresSchema {
    /// Version 17: `revisions.content` may be NULL, meaning "the note's current text"
    /// (`notes.content`), so a write stores its text once (`ServerSchema.revisionsTextOnceV17`
    /// says why and how the invariant is kept). Every row written before stays as it is.
    static let revisionsTextOnceV17 = """
        ALTER TABLE revisions ALTER COLUMN content DROP NOT NULL;

        """
}
