import NotesCore

extension NoteStore {
    /// Writes the attachment `id` at `path` with the stored content `hash` in the space the
    /// session acts in, from the web app (device `web`), recording the member as its author in a
    /// shared space.
    func putAttachment(for session: BrowserSession, id: NoteID, path: NotePath, hash: String, precondition: WritePrecondition) throws {
        _ = try write(for: session.userID) { db in
            try Self.recordingAuthor(session.memberID, of: session.userID, entries: [id], in: db) {
                try putAttachment(db, userID: session.userID, id: id, path: path, hash: hash, precondition: precondition, device: session.deviceLabel)
            }
        }
    }
}
