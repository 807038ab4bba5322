import NotesCore

/// A note as the web app shows it (its page, a revision in its history, the editor's preview):
/// `NoteRendering` in the server's flavour, its links and wiki links leading to the owner's
/// notes and files as they are now (`WebNoteLinks`), its `#tags` to the tag pages.
enum WebNoteRendering {
    /// Renders `content`, written at `notePath`, for `userID`.
    /// `taskForm` makes task checkboxes tick through that form (the note's own page only).
    static func render(_ content: String, notePath: String, userID: Int64, notes: NoteStore, taskForm: String? = nil) throws -> FlavouredRendering {
        let links = WebNoteLinks(notePath: notePath, userID: userID, notes: notes)
        return try notes.rendering.render(content, notePath: notePath, paths: { try notes.livePaths(userID: userID) },
                                          contents: { try notes.liveNoteContent(userID: userID, path: $0) },
                                          links: .privatePage(treat: links.treat), taskForm: taskForm)
    }
}
