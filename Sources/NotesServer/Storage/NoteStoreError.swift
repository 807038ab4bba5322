import NotesCore

/// Why the note store refused a read or a write, in the domain's words; the routing layer
/// chooses the answer (`HTTPError+Notes.swift`).
enum NoteStoreError: Error, Equatable {
    /// No note of this user has that id (never another user's: ids are looked up per user).
    case notFound
    /// Another live note has this path, compared ignoring case.
    case pathTaken(String)
    /// The content is over the published note limit.
    case tooLarge(limit: Int, size: Int)
    /// The id belongs to an entry of the other kind (a note cannot become an attachment).
    case kindMismatch(existing: EntryKind)
    /// A changes cursor older than the deletions the server keeps (or from the future).
    case resyncRequired
}
