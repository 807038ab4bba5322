import NotesCore

/// `/trash`: deleted notes and files (attachments) that can still be brought back, each with an
/// Undelete button: the entries `notes trash` lists.
struct TrashPages: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/trash") { context in .now(try trash(context)) }
        app.add("POST", "/trash/:id/restore") { context in .now(try undelete(context)) }
    }

    /// Notes of every note extension (`.md`, `.markdown`, any case), not only the `.md` ones
    /// the API lists to clients that announce no kinds, and attachments.
    private static let kinds = EntryKindFilter.kinds([.note, .attachment])

    private func trash(_ context: WebContext, error: String? = nil) throws -> HTTPResponse {
        let session = try context.signedIn()
        let rows = try services.notes.trash(userID: session.userID, path: nil, before: nil, limit: 500, kinds: Self.kinds)
        let notice: HTML = error.map { WebFormat.notice($0, error: true) }
            ?? Self.notice(done: context.request.query["done"])
        let items = rows.map { row -> HTML in
            let isFile = row.kind == .attachment
            let title = isFile ? String(row.path.split(separator: "/").last ?? "") : WebFormat.title(ofPath: row.path)
            let what = isFile ? "file · \(WebFormat.size(row.size))" : "note"
            return """
            <li><span><span class="title">\(name: title)</span> <span class="muted small">\(what) · \(name: row.path) · deleted \(WebFormat.time(row.deletedAt))</span></span>\
            <span class="actions">\(isFile ? HTML.empty : "<a href=\"\(WebFormat.notePath(row.id).appending("history"))\">History</a>")\
            \(context.writes ? Self.undeleteButton(row, csrfToken: context.csrfToken) : .empty)</span></li>
            """
        }
        return WebResponse.page(context.layout("Trash", .trash), """
            \(notice)
            <div class="page-head"><h1>Trash</h1></div>
            <section class="card" aria-label="Deleted notes and files">
            \(rows.isEmpty ? "<p class=\"empty\">The trash is empty.</p>" : "<ul class=\"list\">\(items)</ul>" as HTML)
            </section>
            <p class="hint">Deleted notes and files are kept here until the server's tombstone retention ends.</p>
            """, status: error == nil ? 200 : 409)
    }

    /// The Undelete button of a row; left out for a reader who may not write.
    private static func undeleteButton(_ row: NoteStore.TrashRow, csrfToken: String) -> HTML {
        """
        <form action="\(WebPath("/trash").appending(row.id.value).appending("restore"))" method="post">\(WebFormat.csrfField(csrfToken))\
        <input type="hidden" name="rev" value="\(row.rev)"><button type="submit" class="secondary">Undelete</button></form>
        """
    }

    private static func notice(done: String?) -> HTML {
        switch done {
        case "deleted": WebFormat.notice("The note was moved to the trash. Undelete it here if that was a mistake.")
        case "restored-file": WebFormat.notice("The file was brought back.")
        default: .empty
        }
    }

    /// Brings the note back with its last text, or the file with its last content, at its last path.
    private func undelete(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        let tombstone = try context.formInt("rev")
        guard let row = try services.notes.trash(userID: session.userID, path: nil, before: nil, limit: 500, kinds: Self.kinds)
                .first(where: { $0.id == id }),
              let last = try services.notes.revision(userID: session.userID, id: id, rev: row.lastRev) else {
            throw HTTPError.notFound("That note or file is not in the trash any more.")
        }
        do {
            if last.kind == .attachment {
                let path = try NotePath(entry: last.path)
                try services.notes.putAttachment(for: session, id: id, path: path, hash: last.hash, precondition: .revision(tombstone))
                return WebResponse.redirect(WebPath("/trash").query([("done", "restored-file")]))
            }
            _ = try services.notes.put(userID: session.userID, id: id, path: try NotePath(last.path), content: last.content ?? "",
                                       precondition: .revision(tombstone), device: session.deviceLabel, author: session.memberID)
        } catch NoteStoreError.pathTaken {
            return try trash(context, error: "Another note or file now has the path \(last.path); rename that one first, then undelete.")
        } catch is StaleNoteError {
            return try trash(context, error: "That entry changed meanwhile; look at it again.")
        } catch ContentStoreError.contentMissing {
            return try trash(context, error: "The server no longer holds the content of \(last.path), so it cannot be brought back.")
        }
        return WebResponse.redirect(WebFormat.notePath(id).query([("done", "restored")]))
    }
}
