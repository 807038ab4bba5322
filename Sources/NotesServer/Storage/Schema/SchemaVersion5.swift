extension SchemaVersion {
    /// Version 5: a note's HTML rendered at first read and kept per revision.
    static let v5 = SchemaVersion(version: 5, name: "HTML rendered at first read and kept per revision, off the write path",
                                  sqlite: renderedHTML(.sqlite) + sqliteRenderedHTMLMove, postgres: renderedHTML(.postgres))

    /// A note's HTML is rendered when first asked for and kept here with the revision it is of,
    /// rather than at every write: an upload of 10,000 notes does not pay for cmark, and a
    /// revision nobody reads is never rendered. A separate table, because any UPDATE of `notes`
    /// re-indexes the note for search (`notes_fts_update`).
    private static func renderedHTML(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE rendered_html (
            nid \(sql.int64) PRIMARY KEY REFERENCES notes(nid) ON DELETE CASCADE,
            rev \(sql.int64) NOT NULL,
            html TEXT NOT NULL
        );

        """
    }

    /// On SQLite the renderings made at write time move from `notes` into the new table.
    private static let sqliteRenderedHTMLMove = """
        INSERT INTO rendered_html (nid, rev, html) SELECT nid, rev, html FROM notes WHERE deleted = 0;
        ALTER TABLE notes DROP COLUMN html;

        """
}
