extension SchemaVersion {
    /// Version 23: the tags of each live note, kept for the web app's tag pages and `tag:` search;
    /// the kept HTML of a note with wiki links, valid while its owner changes nothing.
    static let v23 = SchemaVersion(version: 23, name: "the tags of each live note; the kept HTML of notes with wiki links",
                                   statements: { noteTags($0) + ownerDependentHTML($0) })

    /// `note_tags` holds each live note's tags at its current revision (front matter `tags` and
    /// inline `#tags`, as the note's rendering finds them: `NoteStore+Tags.swift`), one row a tag;
    /// `tag_key` is the tag in lower case, as tags are matched, `tag` as the note spells it.
    /// A tag page or a `tag:` search reads these rows instead of rendering the notes.
    ///
    /// `tag_marks` records, per user, the revision up to which the user's notes' tags were read
    /// and the rendering (`NoteRendering.keptVersion`) that read them. Every change of a note
    /// (a save, rename, delete, restore) gives it the user's next revision, so the notes whose
    /// tags are not yet read are exactly those with a revision past the mark: they are read
    /// (`NoteStore.catchUpTags`) before any tag answer. A write therefore renders nothing, and
    /// existing notes need no backfill here: a user without a mark has every note read at the
    /// first tag page or `tag:` search; a mark left by another rendering is read again from
    /// the start the same way.
    private static func noteTags(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE note_tags (
            nid \(sql.int64) NOT NULL REFERENCES notes(nid) ON DELETE CASCADE,
            user_id \(sql.int64) NOT NULL,
            tag_key TEXT NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (nid, tag_key)
        )\(sql.withoutRowID);
        CREATE INDEX note_tags_by_tag ON note_tags(user_id, tag_key);

        CREATE TABLE tag_marks (
            user_id \(sql.int64) PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            rev \(sql.int64) NOT NULL,
            renderer \(sql.int64) NOT NULL
        )\(sql.withoutRowID);

        """
    }

    /// `rendered_html.owner_rev`: for the kept HTML of a note that may hold a wiki link or embed,
    /// whose rendering depends on the owner's other notes and files (which exist, where, and
    /// what an embedded note says), the owner's latest revision (`users.last_rev`) when they
    /// were read; such HTML is served only while the owner is still at that revision, so any
    /// creation, rename, deletion or edit renders it again at its next read. NULL for HTML that
    /// depends on the note's text alone (`NoteStore+HTML.swift`).
    private static func ownerDependentHTML(_ sql: SQLDialect) -> String {
        """
        ALTER TABLE rendered_html ADD COLUMN owner_rev \(sql.int64);

        """
    }
}
