import Foundation
import NotesCore

/// A note's history: every revision, any one viewable with its difference from the current
/// text, and restoring one (a new revision with that text; nothing is lost).
struct HistoryPages: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/notes/:id/history") { context in .now(try list(context)) }
        app.add("GET", "/notes/:id/history/:rev") { context in .now(try revision(context)) }
        app.add("POST", "/notes/:id/history/:rev/restore") { context in .now(try restore(context)) }
    }

    private func list(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        guard let note = try services.notes.note(userID: session.userID, id: id) else { throw HTTPError.notFound("There is no such note.") }
        let revisions = try services.notes.revisions(userID: session.userID, id: id)
        let page = WebFormat.notePath(id)
        let items = revisions.map { revision -> HTML in
            let label: HTML = revision.deleted ? "deleted" : "<a class=\"title\" href=\"\(page.appending("history").appending(String(revision.rev)))\">Revision \(revision.rev)</a>"
            return """
                <li><span>\(label)\(revision.rev == note.rev ? " <span class=\"muted small\">(current)</span>" as HTML : .empty)</span>\
                <span class="muted small">\(revision.path) · \(WebFormat.size(revision.size)) · \(revision.author.map { "by " + $0 + " · " } ?? "")\(revision.device ?? "unknown device") · \(Self.time(revision.createdAt))</span></li>
                """
        }
        return WebResponse.page(context.layout("History of " + WebFormat.title(ofPath: note.path)), """
            <div class="page-head"><div><p class="crumbs">\(NotePages.crumbs(note.path))</p><h1>History of \(name: WebFormat.title(ofPath: note.path))</h1></div>
            <div class="actions">\(note.deleted ? HTML.empty : "<a class=\"button secondary\" href=\"\(page)\">Back to the note</a>")</div></div>
            <section class="card" aria-label="Revisions"><ul class="list">\(items)</ul></section>
            """)
    }

    private static func time(_ wire: String) -> HTML {
        WebFormat.time(wire: wire)
    }

    private func revision(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        guard let rev = context.parameters["rev"].flatMap({ Int64($0) }),
              let revision = try services.notes.revision(userID: session.userID, id: id, rev: rev), !revision.deleted,
              let note = try services.notes.note(userID: session.userID, id: id) else {
            throw HTTPError.notFound("There is no such revision.")
        }
        let text = revision.content ?? ""
        let rendered = try WebNoteRendering.render(text, notePath: revision.path, userID: session.userID, notes: services.notes)
        let page = WebFormat.notePath(id)
        let isCurrent = note.rev == rev
        let restore: HTML = isCurrent ? "<span class=\"muted\">This is the current text.</span>" : !context.writes ? .empty : """
            <form action="\(page.appending("history").appending(String(rev)).appending("restore"))" method="post">\(WebFormat.csrfField(context.csrfToken))\
            <input type="hidden" name="current" value="\(note.rev)"><button type="submit">Restore this revision</button></form>
            """
        let comparison: HTML = note.deleted
            ? "<p class=\"empty\">The note is deleted now; restoring brings it back with this text.</p>"
            : DiffView(from: text, to: note.content ?? "").render()
        return WebResponse.page(context.layout("Revision \(rev) of " + WebFormat.title(ofPath: revision.path)), """
            <div class="page-head"><div><p class="crumbs">\(NotePages.crumbs(revision.path))</p><h1>\(name: WebFormat.title(ofPath: revision.path)), revision \(rev)</h1></div>
            <div class="actions">\(restore)<a class="button secondary" href="\(page.appending("history"))">All revisions</a></div></div>
            <div class="grid halves">
            <section class="card" aria-labelledby="diff-heading"><h2 id="diff-heading">From this revision to the current text</h2>\(comparison)</section>
            <section class="card note-body" aria-labelledby="text-heading"><h2 id="text-heading">Text of revision \(rev)</h2>\(HTML(rendered: rendered.html))</section>
            </div>
            """)
    }

    private func restore(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        let current = try context.formInt("current")
        guard let rev = context.parameters["rev"].flatMap({ Int64($0) }),
              let revision = try services.notes.revision(userID: session.userID, id: id, rev: rev), !revision.deleted else {
            throw HTTPError.notFound("There is no such revision.")
        }
        let path = try NotePath(revision.path)
        do {
            _ = try services.notes.put(userID: session.userID, id: id, path: path, content: revision.content ?? "",
                                       precondition: .revision(current), device: session.deviceLabel, author: session.memberID)
        } catch is StaleNoteError {
            throw HTTPError(409, code: "stale", message: "The note changed since this page was loaded, so nothing was restored. Open the revision again and retry.")
        } catch NoteStoreError.pathTaken {
            throw HTTPError(409, code: "path_taken", message: "Another note now has this revision's path (\(revision.path)); rename that one first.")
        }
        return WebResponse.redirect(WebFormat.notePath(id).query([("done", "restored")]))
    }
}
