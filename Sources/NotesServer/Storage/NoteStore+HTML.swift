import Dispatch
import NotesCore

/// A note's HTML: rendered when a revision is first read and kept in `rendered_html`, so writes
/// never pay for cmark and each revision is rendered at most about once.
///
/// A rendering that may hold a wiki link or embed (not `NoteRendering.isSelfContained`) depends
/// on the owner's other notes and files too: which exist, at which paths, and what an embedded
/// one says. It is kept with the owner's latest revision when they were read
/// (`rendered_html.owner_rev`) and served only while the owner is still at that revision, so
/// another note's creation, rename, deletion or edit renders it again at its next read; one
/// that depends on the text alone is kept with no such mark. A kept rendering records the
/// flavour and version that made it (`NoteRendering.keptVersion`).
///
/// Keeping the rendered copy is bookkeeping, done after the answer on a background queue: a read
/// never waits for the writer and never fails because the copy could not be stored (a full
/// disk, a read-only file, another server holding the write lock). It is only stored while the
/// note is still at the revision it was rendered from, so a stale copy can never be served.
extension NoteStore {
    /// A live note's HTML as kept for its revision, or what is needed to render it.
    enum HTMLLookup: Sendable {
        case kept(html: String, rev: Int64)
        case unrendered(UnrenderedNote)
    }

    /// A note revision without a kept rendering: `renderAndKeep(_:)` makes one.
    struct UnrenderedNote: Sendable {
        let nid: Int64
        let rev: Int64
        let content: String
        /// The note's path, which its wiki links resolve from.
        let path: String
        /// The owner's latest revision when the note was read, before any other note or path:
        /// what a rendering that depends on them is kept with.
        let ownerRev: Int64
    }

    /// The live note's kept HTML fragment, or its text to render; nil when there is no such note.
    func htmlLookup(userID: Int64, id: NoteID) throws -> HTMLLookup? {
        let found = try database.read { db in
            try db.first("""
                SELECT n.nid, n.rev, r.html, CASE WHEN r.nid IS NULL THEN n.content END, n.path, u.last_rev
                FROM notes n JOIN users u ON u.id = n.user_id
                LEFT JOIN rendered_html r ON r.nid = n.nid AND r.rev = n.rev AND r.renderer = ?
                    AND (r.owner_rev IS NULL OR r.owner_rev = u.last_rev)
                WHERE n.user_id = ? AND n.id = ? AND n.deleted = 0 AND n.kind = 'note'
                """, [NoteRendering.keptVersion(of: rendering.flavour), userID, id.value]) { row in
                (nid: row.int64(0), rev: row.int64(1),
                 kept: row.isNull(2) ? nil : row.string(2), content: row.isNull(3) ? nil : row.string(3), path: row.string(4),
                 ownerRev: row.int64(5))
            }
        }
        guard let found else { return nil }
        if let kept = found.kept { return .kept(html: kept, rev: found.rev) }
        return .unrendered(UnrenderedNote(nid: found.nid, rev: found.rev, content: found.content ?? "", path: found.path,
                                          ownerRev: found.ownerRev))
    }

    /// Renders `note` of `userID` as the API shows it and keeps the HTML for its revision (later,
    /// best-effort); one that may hold a wiki link, marked with the owner's revision it was read
    /// at. A note past the preflight's bound keeps its escaped-text form just the same.
    func renderAndKeep(_ note: UnrenderedNote, userID: Int64) throws -> String {
        let html = try rendering.render(note.content, notePath: note.path, paths: { try livePaths(userID: userID) },
                                    contents: { try liveNoteContent(userID: userID, path: $0) }).html
        keepRendered(html, nid: note.nid, rev: note.rev, ownerRev: rendering.isSelfContained(note.content) ? nil : note.ownerRev)
        return html
    }

    /// Stores `html` as the rendering of revision `rev` of note `nid`, later and best-effort;
    /// `ownerRev` is the owner's revision it depends on, nil when it depends on the text alone.
    private func keepRendered(_ html: String, nid: Int64, rev: Int64, ownerRev: Int64?) {
        let database = database
        Self.keeping.async {
            // A failure leaves the copy missing, and the next read renders again: nothing to report.
            _ = try? database.write { db in
                try db.run("""
                    INSERT INTO rendered_html (nid, rev, html, renderer, owner_rev)
                    SELECT nid, rev, ?, ?, ? FROM notes WHERE nid = ? AND rev = ? AND deleted = 0
                    ON CONFLICT (nid) DO UPDATE SET rev = excluded.rev, html = excluded.html, renderer = excluded.renderer,
                        owner_rev = excluded.owner_rev
                    """, html, NoteRendering.keptVersion(of: rendering.flavour), ownerRev, nid, rev)
            }
        }
    }

    /// Drops the kept rendering of a note that is being changed or deleted, in the writing
    /// transaction: only the live revision's HTML is kept, so the text of an old revision or a
    /// deleted note lives nowhere but in `revisions` (which `purge` erases).
    static func forgetRendered(_ db: some SQLConnection, userID: Int64, id: NoteID) throws {
        try db.run("DELETE FROM rendered_html WHERE nid = (SELECT nid FROM notes WHERE user_id = ? AND id = ?)", userID, id.value)
    }

    /// One serial queue for every store: renderings are kept in the order they were made.
    private static let keeping = DispatchQueue(label: "notes.rendered-html", qos: .utility)
}
