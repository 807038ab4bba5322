import Dispatch
import NotesCore

/// A note's HTML: rendered when a revision is first read and kept in `rendered_html`, so writes
/// never pay for cmark and each revision is rendered at most about once.
///
/// Keeping the rendered copy is bookkeeping, done after the answer on a background queue: a read
/// never waits for the writer and never fails because the copy could not be stored (a full
/// disk, a read-only file, another server holding the write lock). It is only stored while the
/// note is still at the revision it was rendered from, so a stale copy can never be served.
extension NoteStore {
    /// The version of what the renderer makes of a note: raise it whenever `MarkdownRenderer`'s
    /// safe output changes, and every kept rendering is made again at its next read.
    /// 1: links with a refused scheme render as their text, not as `<a href="">`.
    /// 2: a note past `MarkdownPreflight`'s bound renders as its escaped text with a notice.
    static let renderingVersion = 2

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
    }

    /// The live note's kept HTML fragment, or its text to render; nil when there is no such note.
    func htmlLookup(userID: Int64, id: NoteID) throws -> HTMLLookup? {
        let found = try database.read { db in
            try db.first("""
                SELECT n.nid, n.rev, r.html, CASE WHEN r.nid IS NULL THEN n.content END
                FROM notes n LEFT JOIN rendered_html r ON r.nid = n.nid AND r.rev = n.rev AND r.renderer = ?
                WHERE n.user_id = ? AND n.id = ? AND n.deleted = 0 AND n.kind = 'note'
                """, [Self.renderingVersion, userID, id.value]) { row in
                (nid: row.int64(0), rev: row.int64(1),
                 kept: row.isNull(2) ? nil : row.string(2), content: row.isNull(3) ? nil : row.string(3))
            }
        }
        guard let found else { return nil }
        if let kept = found.kept { return .kept(html: kept, rev: found.rev) }
        return .unrendered(UnrenderedNote(nid: found.nid, rev: found.rev, content: found.content ?? ""))
    }

    /// Renders `note` and keeps the HTML for its revision (later, best-effort), like any rendering:
    /// a note past the preflight's bound keeps its escaped-text form just the same.
    func renderAndKeep(_ note: UnrenderedNote) -> String {
        let html = renderer.html(from: note.content)
        keepRendered(html, nid: note.nid, rev: note.rev)
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
                    """, html, Self.renderingVersion, nid, rev)
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
