import Foundation
import NotesCore

/// Writing notes from a browser: edit (with live preview), create, rename or move, delete,
/// and the preview endpoint the editor's script calls.
///
/// A save carries the revision the form was loaded at, the web's `If-Match`: when the note
/// changed meanwhile, nothing is overwritten and the page shows both texts, the typed one still
/// in the editor, so nothing typed is ever lost.
struct EditPages: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/notes/:id/edit") { context in .now(try editForm(context)) }
        app.add("POST", "/notes/:id/edit") { context in .now(try save(context)) }
        app.add("GET", "/new") { context in .now(newForm(context, path: Self.suggestedPath(context.request.query["folder"]), content: "")) }
        app.add("POST", "/new") { context in .now(try create(context)) }
        app.add("GET", "/notes/:id/rename") { context in .now(try renameForm(context)) }
        app.add("POST", "/notes/:id/rename") { context in .now(try rename(context)) }
        app.add("POST", "/notes/:id/delete") { context in .now(try delete(context)) }
        app.add("POST", "/preview") { context in .now(try preview(context)) }
    }

    /// The editor's live preview: the draft rendered as the note page renders the saved note,
    /// its relative images and links leading to the user's files and notes (`WebNoteLinks`) from
    /// the folder of `path`, the note's own path or the one being typed for a new note.
    private func preview(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let rendered = try WebNoteRendering.render(context.formText("content"), notePath: Self.previewPath(context.form["path"]),
                                                   userID: session.userID, notes: services.notes)
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(rendered.html.utf8))
        WebSecurity.secure(&response)
        return response
    }

    /// Where a preview's relative links resolve from: a note in the folder of `typed` (only the
    /// folder matters, and a path still being typed has no name yet), or at the top level when
    /// that folder is not a valid one.
    static func previewPath(_ typed: String?) -> String {
        let text = (typed ?? "").trimmingCharacters(in: .whitespaces)
        guard let slash = text.lastIndex(of: "/"), let path = try? NotePath(entry: text[..<slash] + "/preview.md") else {
            return "preview.md"
        }
        return path.value
    }

    private func liveNote(_ context: WebContext) throws -> NoteRecord {
        let session = try context.signedIn()
        guard let note = try services.notes.note(userID: session.userID, id: try context.noteID()), !note.deleted else {
            throw HTTPError.notFound("There is no such note; it may have been deleted (look in the trash).")
        }
        return note
    }

    /// The editor: a labelled text area, the revision it started from, a preview pane the
    /// script fills (hidden without JavaScript), and the save button in a bar that stays at the
    /// bottom of the window while the form is in view (on a phone the preview sits below the
    /// text, and Save must not be a long scroll away).
    /// `beside`, when given, takes the preview's place (the conflict page's saved version).
    /// `notePath` is the saved note's path, which the preview resolves relative links from (a new
    /// note's form sends the path typed instead).
    private func editor(action: WebPath, token: String, rev: Int64, content: String, notePath: String = "", extra: HTML = .empty,
                        submit: String = "Save", consequence: String? = nil, beside: HTML? = nil) -> HTML {
        // The newline after <textarea> is eaten by the HTML parser, so a note's own leading
        // newline survives.
        """
        <form action="\(action)" method="post">
        \(WebFormat.csrfField(token))
        <input type="hidden" name="rev" value="\(rev)">
        \(extra)
        <div class="editor\(beside == nil ? "" : " with-preview")">
        <div>
        <label for="content">Text (Markdown)</label>
        <textarea id="content" name="content"\(beside == nil ? " data-preview-url=\"/preview\" data-note-path=\"\(notePath)\"" as HTML : .empty) spellcheck="true">
        \(content)</textarea>
        </div>
        \(beside ?? "<section class=\"card note-body preview\" id=\"preview\" aria-label=\"Preview\" aria-live=\"polite\" hidden></section>")
        </div>
        <div class="form-actions editor-actions"><button type="submit"\(consequence == nil ? HTML.empty : " aria-describedby=\"save-consequence\"")>\(submit)</button>\
        \(consequence.map { "<p class=\"hint\" id=\"save-consequence\">\($0)</p>" as HTML } ?? .empty)</div>
        </form>
        """
    }

    /// `layout` for a page with the live preview, which may show math and code of any kind.
    private static func withPreview(_ layout: WebLayout) -> WebLayout {
        var layout = layout
        layout.typesetting = .all
        return layout
    }

    private func editForm(_ context: WebContext) throws -> HTTPResponse {
        let note = try liveNote(context)
        let page = WebFormat.notePath(note.id)
        return WebResponse.page(Self.withPreview(context.layout("Edit " + WebFormat.title(ofPath: note.path))), """
            <div class="page-head"><div><p class="crumbs">\(NotePages.crumbs(note.path))</p><h1>Edit \(name: WebFormat.title(ofPath: note.path))</h1></div>
            <div class="actions"><a class="button secondary" href="\(page)">Cancel</a></div></div>
            \(editor(action: page.appending("edit"), token: context.csrfToken, rev: note.rev, content: note.content ?? "", notePath: note.path))
            """)
    }

    /// Saves the editor's text. When the note changed since the editor opened (the form's `rev`
    /// is its base), the typed text is merged into the current one (`MergingSave`): a clean
    /// merge saves both sides' changes, and only an overlapping one shows the conflict page.
    private func save(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        let base = try context.formInt("rev")
        guard let current = try services.notes.note(userID: session.userID, id: id) else { throw HTTPError.notFound("There is no such note.") }
        let typed = context.formText("content", likeLinesOf: current.content)
        switch try MergingSave(notes: services.notes).save(typed, from: base, over: current, session: session) {
        case .saved(let merged):
            return WebResponse.redirect(WebFormat.notePath(id).query([("done", merged ? "merged" : "saved")]))
        case .overlapping(let now):
            return try conflict(context, current: now, typed: typed)
        case .tooLarge(let limit, let now):
            return try conflict(context, current: now, typed: typed, problem: "The note is larger than the server's limit of \(WebFormat.size(limit)).")
        }
    }

    /// The note changed (or went) while this browser edited it, and the changes overlap: the
    /// typed text stays in the editor, set to save over the current revision, with the saved
    /// text and the difference beside it to merge by hand, and the page says what "Save my
    /// text" replaces.
    private func conflict(_ context: WebContext, current: NoteRecord, typed: String, problem: String? = nil) throws -> HTTPResponse {
        let page = WebFormat.notePath(current.id)
        let saved = current.content ?? ""
        let message = problem ?? (current.deleted
            ? "This note was deleted while you were editing it. Your text is below; saving brings the note back with it."
            : "This note was changed elsewhere while you were editing it, and those changes overlap yours, so they could not be merged. Your text is below, nothing is lost: merge in what you need from the saved version, then save.")
        return WebResponse.page(context.layout("Edit " + WebFormat.title(ofPath: current.path)), """
            <div class="page-head"><div><p class="crumbs">\(NotePages.crumbs(current.path))</p><h1>Edit \(name: WebFormat.title(ofPath: current.path))</h1></div>
            <div class="actions"><a class="button secondary" href="\(page)">Discard my text</a></div></div>
            \(WebFormat.notice(message, error: true))
            \(editor(action: page.appending("edit"), token: context.csrfToken, rev: current.rev, content: typed, submit: "Save my text",
                     consequence: try replacement(current, typed: typed, userID: try context.signedIn().userID), beside: """
                <aside>
                <section class="card" aria-labelledby="saved-heading"><h2 id="saved-heading">The saved version (revision \(current.rev))</h2>
                <pre class="source" id="saved-text">\(saved)</pre></section>
                <section class="card" aria-labelledby="diff-heading"><h2 id="diff-heading">From the saved version to yours</h2>
                \(DiffView(from: saved, to: typed).render())</section>
                </aside>
                """))
            """, status: 409)
    }

    /// What "Save my text" does to the saved version, in words beside the button: which revision
    /// it replaces (when and from where it was saved), and how many of its lines leave the note.
    private func replacement(_ current: NoteRecord, typed: String, userID: Int64) throws -> String {
        guard !current.deleted else {
            return "Save my text brings the note back with the text in the editor."
        }
        let device = try services.notes.revision(userID: userID, id: current.id, rev: current.rev)?.device
        let removed = DiffView(from: current.content ?? "", to: typed).lines?.filter {
            if case .removed = $0 { return true } else { return false }
        }.count
        let source = device.map { " from \($0)" } ?? ""
        let saved = "revision \(current.rev), saved\(source) at \(WebFormat.plainTime(current.updatedAt))"
        let lines: String = switch removed {
        case nil: "the whole saved text is replaced"
        case 0: "no line of it is removed"
        case 1: "the 1 line marked − in the difference leaves the note"
        case let count?: "the \(count) lines marked − in the difference leave the note"
        }
        return "Save my text replaces the saved version (\(saved)) with the text in the editor: \(lines). The saved version stays in the note's history."
    }

    private static func suggestedPath(_ folder: String?) -> String {
        guard let folder, !folder.isEmpty else { return "" }
        return folder.hasSuffix("/") ? folder : folder + "/"
    }

    private func newForm(_ context: WebContext, path: String, content: String, error: String? = nil) -> HTTPResponse {
        let pathField: HTML = """
            \(error.map { WebFormat.notice($0, error: true) } ?? .empty)
            <label for="path">Path</label>
            <input type="text" id="path" name="path" value="\(path)" placeholder="folder/Note title.md" required autocapitalize="none" spellcheck="false" aria-describedby="path-hint">
            <p class="hint" id="path-hint">Folders are separated by <code>/</code>; <code>.md</code> is added when missing.</p>
            """
        return WebResponse.page(Self.withPreview(context.layout("New note", .new)), """
            <div class="page-head"><h1>New note</h1></div>
            \(editor(action: WebPath("/new"), token: context.csrfToken, rev: 0, content: content, extra: pathField, submit: "Create"))
            """, status: error == nil ? 200 : 422)
    }

    /// `name` as a note path: `.md` added unless it already ends in a note extension, then the
    /// server's path rules.
    private static func notePath(_ raw: String) -> Result<NotePath, HTTPError> {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if EntryKind(path: text) != .note { text += NotePath.fileExtension }
        do {
            let path = try NotePath(text)
            if let problem = path.newNoteProblem { return .failure(.invalidPath(problem)) }
            return .success(path)
        } catch {
            return .failure(.invalidPath(error))
        }
    }

    private func create(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let raw = context.form["path"] ?? ""
        let content = context.formText("content")
        let path: NotePath
        switch Self.notePath(raw) {
        case .success(let valid): path = valid
        case .failure(let error): return newForm(context, path: raw, content: content, error: error.message)
        }
        let id = NoteID()
        do {
            _ = try services.notes.put(userID: session.userID, id: id, path: path, content: content, precondition: .absent, device: session.deviceLabel,
                                       author: session.memberID)
        } catch NoteStoreError.pathTaken {
            return newForm(context, path: raw, content: content, error: "Another note already has that path; choose another.")
        } catch NoteStoreError.tooLarge(let limit, _) {
            return newForm(context, path: raw, content: content, error: "The note is larger than the server's limit of \(WebFormat.size(limit)).")
        }
        return WebResponse.redirect(WebFormat.notePath(id))
    }

    private func renameForm(_ context: WebContext, path: String? = nil, rev: Int64? = nil, error: String? = nil) throws -> HTTPResponse {
        let note = try liveNote(context)
        let page = WebFormat.notePath(note.id)
        return WebResponse.page(context.layout("Rename " + WebFormat.title(ofPath: note.path)), """
            <div class="narrow card">
            <h1>Rename or move</h1>
            \(error.map { WebFormat.notice($0, error: true) } ?? .empty)
            <form action="\(page.appending("rename"))" method="post">
            \(WebFormat.csrfField(context.csrfToken))
            <input type="hidden" name="rev" value="\(rev ?? note.rev)">
            <label for="path">New path</label>
            <input type="text" id="path" name="path" value="\(path ?? note.path)" required autocapitalize="none" spellcheck="false" aria-describedby="path-hint">
            <p class="hint" id="path-hint">Now <code>\(name: note.path)</code>. A folder in front (<code>work/</code>) moves it; the history stays with the note.</p>
            <div class="form-actions"><button type="submit">Rename</button><a class="button secondary" href="\(page)">Cancel</a></div>
            </form>
            </div>
            """, status: error == nil ? 200 : 422)
    }

    private func rename(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let note = try liveNote(context)
        let base = try context.formInt("rev")
        let raw = context.form["path"] ?? ""
        guard note.rev == base else {
            return try renameForm(context, path: raw, error: "The note changed meanwhile; check the path and rename again.")
        }
        let path: NotePath
        switch Self.notePath(raw) {
        case .success(let valid): path = valid
        case .failure(let error): return try renameForm(context, path: raw, error: error.message)
        }
        guard let full = try services.notes.note(userID: session.userID, id: note.id) else { throw HTTPError.notFound() }
        do {
            _ = try services.notes.put(userID: session.userID, id: note.id, path: path, content: full.content ?? "", precondition: .revision(base),
                                       device: session.deviceLabel, author: session.memberID)
        } catch NoteStoreError.pathTaken {
            return try renameForm(context, path: raw, error: "Another note already has that path; choose another.")
        } catch is StaleNoteError {
            return try renameForm(context, path: raw, error: "The note changed meanwhile; check the path and rename again.")
        }
        return WebResponse.redirect(WebFormat.notePath(note.id).query([("done", "renamed")]))
    }

    private func delete(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let note = try liveNote(context)
        let base = try context.formInt("rev")
        do {
            _ = try services.notes.delete(userID: session.userID, id: note.id, ifMatch: base, device: session.deviceLabel, author: session.memberID)
        } catch is StaleNoteError {
            throw HTTPError(409, code: "stale", message: "The note changed since you opened it, so it was not deleted. Open it again to see the change.")
        }
        return WebResponse.redirect(WebPath("/trash").query([("done", "deleted")]))
    }
}

extension BrowserSession {
    /// What revisions record as the device that wrote them.
    var deviceLabel: String { "web" }
}
