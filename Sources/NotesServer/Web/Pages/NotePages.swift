import Foundation
import NotesCore

/// The home page (folder tree and recent notes) and a note's page (rendered, with the notes
/// that link to it).
struct NotePages: Sendable {
    let services: WebServices

    /// The most notes the tree shows; past it, search finds the rest.
    static let treeLimit = 5000

    func register(in app: inout WebApp) {
        app.add("GET", "/notes/:id") { context in try note(context) }
    }

    /// Actions on a note's page, in order; `publication` is the note's live link, if any (its
    /// "Unpublish", else "Publish…"). A reader who may not write (a space's viewer) gets only
    /// History: the controls that change the note are left out, not merely refused.
    static func actions(for note: NoteRecord, csrfToken: String, publication: PublicationRecord? = nil, writes: Bool = true) -> [HTML] {
        let page = WebFormat.notePath(note.id)
        guard writes else { return ["<a class=\"button secondary\" href=\"\(page.appending("history"))\">History</a>"] }
        return [
            "<a class=\"button\" href=\"\(page.appending("edit"))\">Edit</a>",
            "<a class=\"button secondary\" href=\"\(page.appending("history"))\">History</a>",
            "<a class=\"button secondary\" href=\"\(page.appending("rename"))\">Rename or move</a>",
            PublishPages.controls(for: note, publication: publication, csrfToken: csrfToken),
            """
            <form action="\(page.appending("delete"))" method="post">\(WebFormat.csrfField(csrfToken))<input type="hidden" name="rev" value="\(note.rev)"><button type="submit" class="danger">Delete</button></form>
            """,
        ]
    }

    func home(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        var notes: [NoteRecord] = []
        var after: String?
        repeat {
            let page = try services.notes.list(userID: session.userID, after: after, limit: 1000, path: nil, kinds: .kinds([.note, .attachment]))
            notes += page
            after = page.count == 1000 ? page.last?.path : nil
        } while after != nil && notes.count < Self.treeLimit
        let recent = notes.filter { $0.kind == .note }.sorted { ($0.updatedAt, $0.path) > ($1.updatedAt, $1.path) }.prefix(12)
        let notice: HTML = switch context.request.query["done"] {
        case "deleted": WebFormat.notice("The note was moved to the trash.")
        case "uploaded": WebFormat.notice("Uploaded.")
        default: .empty
        }
        let heading = context.space.map { "Notes in " + $0.name } ?? "Your notes"
        let upload: HTML = """
            <h2 id="upload-heading">Upload a file</h2>
            \(FilePages(services: services).uploadForm(csrfToken: context.csrfToken, folder: context.request.query["folder"] ?? ""))
            """
        let content: HTML = """
            \(notice)
            <div class="page-head"><h1>\(heading)</h1><div class="actions">\(context.writes ? "<a class=\"button\" href=\"/new\">New note</a>" as HTML : .empty)</div></div>
            <div class="grid two">
            <section class="card" aria-labelledby="tree-heading">
            <h2 id="tree-heading">Folders</h2>
            \(notes.isEmpty ? "<p class=\"empty\">No notes yet. Create one, or sync a folder with <code>notes sync</code>.</p>" : FolderTree(notes: notes).render())
            \(notes.count >= Self.treeLimit ? "<p class=\"hint\">Showing the first \(Self.treeLimit) notes; search finds every note.</p>" as HTML : .empty)
            </section>
            <section class="card" aria-labelledby="recent-heading">
            <h2 id="recent-heading">Recently changed</h2>
            \(recent.isEmpty ? "<p class=\"empty\">Nothing yet.</p>" : "<ul class=\"list\">\(recent.map(Self.recentItem))</ul>" as HTML)
            \(context.writes ? upload : .empty)
            </section>
            </div>
            """
        return WebResponse.page(context.layout(heading, .notes), content)
    }

    private static func recentItem(_ note: NoteRecord) -> HTML {
        let folder = WebFormat.folder(ofPath: note.path)
        return """
            <li><a class="title" href="\(WebFormat.notePath(note.id))">\(name: WebFormat.title(ofPath: note.path))</a>\
            <span class="muted small">\(folder.isEmpty ? "" : HTML.name(folder) + " · ")\(WebFormat.time(note.updatedAt))</span></li>
            """
    }

    /// The note's page: a note over `RenderWorker.inlineBytes` is rendered on the render worker,
    /// within its owner's share, so a large or hostile note never holds a connection thread.
    private func note(_ context: WebContext) throws -> HTTPOutcome {
        let session = try context.signedIn()
        let id = try context.noteID()
        guard let note = try services.notes.note(userID: session.userID, id: id), !note.deleted, note.kind == .note else {
            throw HTTPError.notFound("There is no such note; it may have been deleted (look in the trash).")
        }
        let services = services
        let page: @Sendable () throws -> HTTPResponse = { try Self.page(of: note, session: session, context: context, services: services) }
        guard !RenderWorker.rendersInline(note.content ?? "", with: services.notes.rendering) else { return .now(try page()) }
        return .later {
            do {
                return try await services.renderWorker.run(for: session.userID, page)
            } catch let refusal as HTTPError {
                return WebResponse.error(refusal, viewer: WebLayout.Viewer(username: session.username, csrfToken: context.csrfToken))
            } catch {
                return WebResponse.error(HTTPError.answer(for: error, requestID: context.request.id, log: services.log),
                                         viewer: WebLayout.Viewer(username: session.username, csrfToken: context.csrfToken))
            }
        }
    }

    private static func page(of note: NoteRecord, session: BrowserSession, context: WebContext, services: WebServices) throws -> HTTPResponse {
        // Rendered at each read: its relative images and links lead to the user's files and notes
        // as they are now (see `WebNoteLinks`).
        let rendered = try WebNoteRendering.render(note.content ?? "", notePath: note.path, userID: session.userID, notes: services.notes,
                                                   taskForm: context.writes ? TaskPages.formID : nil)
        let backlinks = try services.notes.notes(linkingTo: note.path, userID: session.userID)
        let publication = context.writes ? try services.publications.list(userID: session.userID).first { $0.noteID == note.id } : nil
        let notice: HTML = switch context.request.query["done"] {
        case "saved": WebFormat.notice("Saved.")
        case "merged": WebFormat.notice("Saved, merged with changes made elsewhere while you were editing.")
        case "restored": WebFormat.notice("Restored.")
        case "renamed": WebFormat.notice("Renamed.")
        default: .empty
        }
        let content: HTML = """
            \(notice)
            <div class="page-head">
            <div><p class="crumbs">\(Self.crumbs(note.path))</p><h1>\(name: WebFormat.title(ofPath: note.path))</h1></div>
            <div class="actions">\(Self.actions(for: note, csrfToken: context.csrfToken, publication: publication, writes: context.writes))</div>
            </div>
            \(context.writes ? TaskPages.form(for: note, csrfToken: context.csrfToken, bodyHTML: rendered.html) : .empty)
            <div class="grid two">
            <article class="card note-body" aria-label="Note">
            \(HTML(rendered: rendered.html))
            </article>
            <aside class="card" aria-labelledby="links-heading">
            <h2 id="links-heading">Linked from</h2>
            \(backlinks.isEmpty ? "<p class=\"empty\">No other note links here.</p>" : "<ul class=\"list\">\(backlinks.map(Self.recentItem))</ul>" as HTML)
            <h2>Details</h2>
            <p class="muted small">Revision \(note.rev) · \(WebFormat.size(note.size))<br>Changed \(WebFormat.time(note.updatedAt))<br>Created \(WebFormat.time(note.createdAt))</p>
            </aside>
            </div>
            """
        return WebResponse.page(context.layout(rendered.title(orFileName: note.path.split(separator: "/").last.map(String.init) ?? note.path), .notes), content)
    }

    /// `folder / sub /` above a note's title.
    static func crumbs(_ path: String) -> HTML {
        let folders = WebFormat.folder(ofPath: path).split(separator: "/").map(String.init)
        guard !folders.isEmpty else { return "<a href=\"/\">Notes</a>" }
        return "<a href=\"/\">Notes</a> / " as HTML + HTML.joined(folders.map { HTML.name($0) }, separator: " / ")
    }
}

/// The home page's folder tree: nested lists, each folder a `<details>` (open at the top level),
/// so it folds without JavaScript.
struct FolderTree {
    private final class Folder {
        var folders: [String: Folder] = [:]
        var notes: [NoteRecord] = []
    }

    private let root = Folder()

    init(notes: [NoteRecord]) {
        for note in notes {
            var folder = root
            let parts = note.path.split(separator: "/").map(String.init)
            for name in parts.dropLast() {
                if let existing = folder.folders[name] {
                    folder = existing
                } else {
                    let created = Folder()
                    folder.folders[name] = created
                    folder = created
                }
            }
            folder.notes.append(note)
        }
    }

    func render() -> HTML {
        "<ul class=\"tree\">\(Self.items(of: root, depth: 0))</ul>"
    }

    private static func items(of folder: Folder, depth: Int) -> [HTML] {
        let folders = folder.folders.sorted { $0.key.localizedStandardCompare($1.key) == .orderedAscending }.map { name, child -> HTML in
            """
            <li><details\(depth == 0 ? " open" : "")><summary>\(name: name)</summary><ul>\(items(of: child, depth: depth + 1))</ul></details></li>
            """
        }
        let notes = folder.notes.sorted { $0.path.localizedStandardCompare($1.path) == .orderedAscending }.map { note -> HTML in
            guard note.kind == .attachment else {
                return "<li class=\"note\"><a href=\"\(WebFormat.notePath(note.id))\">\(name: WebFormat.title(ofPath: note.path))</a></li>"
            }
            let name = note.path.split(separator: "/").last.map(String.init) ?? note.path
            return """
                <li class="file"><a href="\(FilePages.address(of: note.path))">\(name: name)</a> \
                <span class="muted small">\(note.mediaType ?? "file") · \(WebFormat.size(note.size))</span></li>
                """
        }
        return folders + notes
    }
}
