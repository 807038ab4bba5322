import NotesCore

/// Ticking tasks on a note's page. The rendered note's checkboxes (`FlavouredRenderer.taskForm`)
/// belong to a form after the note, which carries the revision the page shows and the CSRF
/// token: notes.js submits it at each click, and without JavaScript its button saves what was
/// ticked. The server sets exactly those tasks in the text of that revision, one byte each
/// (`NoteTasks`), and saves it as the editor saves (`MergingSave`): a tick on a page older
/// than the note is merged into the current text, keeping the changes made elsewhere too.
struct TaskPages: Sendable {
    let services: WebServices

    /// The id of the form the note page's task checkboxes belong to.
    static let formID = "note-tasks"

    func register(in app: inout WebApp) {
        app.add("POST", "/notes/:id/tasks") { context in .now(try save(context)) }
    }

    /// The form after a note whose rendered `bodyHTML` has task checkboxes; empty otherwise.
    static func form(for note: NoteRecord, csrfToken: String, bodyHTML: String) -> HTML {
        guard bodyHTML.contains("form=\"\(formID)\"") else { return .empty }
        return """
            <form id="\(formID)" class="task-form" action="\(WebFormat.notePath(note.id).appending("tasks"))" method="post" autocomplete="off">
            \(WebFormat.csrfField(csrfToken))
            <input type="hidden" name="rev" value="\(note.rev)">
            <button type="submit" class="secondary">Save ticked tasks</button>
            </form>
            """
    }

    private func save(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        let base = try context.formInt("rev")
        let ticked = try Self.taskNumbers(context.form.values("done"))
        guard let current = try services.notes.note(userID: session.userID, id: id), !current.deleted, current.kind == .note else {
            throw HTTPError.notFound("There is no such note; it may have been deleted (look in the trash).")
        }
        // The text the page showed: the tasks are numbered in it.
        let shownText: String?
        if current.rev == base {
            shownText = current.content
        } else if let revision = try services.notes.revision(userID: session.userID, id: id, rev: base), !revision.deleted, revision.kind == .note {
            shownText = revision.content
        } else {
            shownText = nil
        }
        guard let shown = shownText else {
            throw HTTPError(409, code: "stale", message: "The revision this page showed is no longer in the note's history. Reload the note and tick the task again.")
        }
        let tasks: NoteTasks
        do {
            tasks = try NoteTasks(shown)
        } catch {
            throw HTTPError(503, code: "renderer_unavailable", message: "Tasks cannot be ticked on this server: \(error)")
        }
        if let number = ticked.first(where: { $0 >= tasks.tasks.count }) {
            throw HTTPError(422, code: "no_such_task", message: "The note has no task number \(number). Reload the note and try again.")
        }
        let changed = tasks.setting(ticked: ticked)
        let page = WebFormat.notePath(id)
        guard changed != shown else { return WebResponse.redirect(page) }
        switch try MergingSave(notes: services.notes).save(changed, from: base, over: current, session: session) {
        case .saved(let merged):
            return WebResponse.redirect(merged ? page.query([("done", "merged")]) : page)
        case .overlapping:
            throw HTTPError(409, code: "task_changed", message: "The task was changed elsewhere since this page was loaded, so the tick was not saved. Reload the note to see it as it is now.")
        case .tooLarge(let limit, _):
            throw HTTPError(413, code: "too_large", message: "The note is larger than the server's limit of \(WebFormat.size(limit)).")
        }
    }

    /// The task numbers a form sent (`done`, one per ticked box), or 400 for anything else.
    private static func taskNumbers(_ values: [String]) throws(HTTPError) -> Set<Int> {
        var numbers: Set<Int> = []
        for value in values {
            guard let number = Int(value), number >= 0 else {
                throw HTTPError.badRequest("The form names a task that is not a number; reload the page and try again.")
            }
            numbers.insert(number)
        }
        return numbers
    }
}
