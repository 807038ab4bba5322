import Dispatch
import NotesCore

/// A note's HTML: rendered when a revision is first read and kept in `rendered_html`, so writes
/// never pay for cmark and each revision is rendered at most about once.
///
/// Only a rendering that depends on nothing but the note's text is kept: one that may hold a
/// wiki link (`NoteRendering.isSelfContained`) depends on which other notes and files exist,
/// which another note's creation, rename or deletion changes, so it is rendered at each read.
/// A kept rendering records the flavour and version that made it (`NoteRendering.keptVersion`).
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
    }

    /// The live note's kept HTML fragment, or its text to render; nil when there is no such note.
    func htmlLookup(userID: Int64, id: NoteID) throws -> HTMLLookup? {
        let found = try database.read { db in
            try db.first("""
                SELECT n.nid, n.rev, r.html, CASE WHEN r.nid IS NULL THEN n.content END, n.path
                FROM notes n LEFT JOIN rendered_html r ON r.nid = n.nid AND r.rev = n.rev AND r.renderer = ?
                WHERE n.user_id = ? AND n.id = ? AND n.deleted = 0 AND n.kind = 'note'
                """, [NoteRendering.keptVersion(of: rendering.flavour), userID, id.value]) { row in
                (nid: row.int64(0), rev: row.int64(1),
                 kept: row.isNull(2) ? nil : row.string(2), content: row.isNull(3) ? nil : row.string(3), path: row.string(4))
            }
        }
        guard let found else { return nil }
        if let kept = found.kept { return .kept(html: kept, rev: found.rev) }
        return .unrendered(UnrenderedNote(nid: found.nid, rev: found.rev, content: found.content ?? "", path: found.path))
    }

    /// Renders `note` of `userID` as the API shows it and keeps the HTML for its revision (later,
    /// best-effort) unless it may hold a wiki link: a note past the preflight's bound keeps its
    /// escaped-text form just the same.
    func renderAndKeep(_ note: UnrenderedNote, userID: Int64) throws -> String {
        let html = try rendering.render(note.content, notePath: note.path, paths: { try livePaths(userID: userID) },
                                    contents: { try liveNoteContent(userID: userID, path: $0) }).html
        if rendering.isSelfContained(note.content) { keepRendered(html, nid: note.nid, rev: note.rev) }
        return html
    }

    /// Stores `html` as the rendering of revision `rev` of note `nid`, later and best-effort.
    private func keepRendered(_ html: String, nid: Int64, rev: Int64) {
        let database = database
        Self.keeping.async {
            // A failure leaves the copy missing, and the next read renders again: nothing to report.
            _ = try? database.write { db in
                try db.run("""
                    INSERT INTO rendered_html (nid, rev, html, renderer)
                    SELECT nid, rev, ?, ? FROM notes WHERE nid = ? AND rev = ? AND deleted = 0
                    ON CONFLICT (nid) DO UPDATE SET rev = excluded.rev, html = excluded.html, renderer = excluded.renderer
                    """, html, NoteRendering.keptVersion(of: rendering.flavour), nid, rev)
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
