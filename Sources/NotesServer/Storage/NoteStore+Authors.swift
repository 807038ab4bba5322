import NotesCore

/// The author of each revision in a shared space (docs/architecture.md §6.5): the member whose
/// write made it, in `revisions.author_id`. In an account's own space the author is the account
/// itself and nothing is recorded (NULL reads as the holder), so personal writes pay nothing.
extension NoteStore {
    /// Runs `body`, which writes entries `ids` of `userID` in `db`'s transaction, and records
    /// `author` on every revision of those entries it appended. With no author, or the holder
    /// itself, runs `body` alone.
    static func recordingAuthor<T>(_ author: Int64?, of userID: Int64, entries ids: [NoteID], in db: some SQLConnection,
                                   _ body: () throws -> T) throws -> T {
        guard let author, author != userID else { return try body() }
        let before = try db.scalarInt("SELECT last_rev FROM users WHERE id = ?", [userID]) ?? 0
        let result = try body()
        // Each entry's revisions by its key (user, note, rev): only this write's are past `before`,
        // the user's writes being serialised.
        for id in Set(ids.map(\.value)) {
            try db.run("UPDATE revisions SET author_id = ? WHERE user_id = ? AND note_id = ? AND rev > ?", author, userID, id, before)
        }
        return result
    }

    /// Runs `body`, which writes entries of `userID` in `db`'s transaction, and records `author`
    /// on every revision it appended, whichever entries it wrote (a WebDAV folder's move or
    /// delete writes every entry inside). With no author, or the holder itself, runs `body` alone.
    static func recordingAuthor<T>(_ author: Int64?, of userID: Int64, in db: some SQLConnection, _ body: () throws -> T) throws -> T {
        guard let author, author != userID else { return try body() }
        let before = try db.scalarInt("SELECT last_rev FROM users WHERE id = ?", [userID]) ?? 0
        let result = try body()
        // An entry written here has its latest revision past `before` (`notes_by_rev`), the
        // user's writes being serialised; its revisions past `before` are this write's.
        try db.run("""
            UPDATE revisions SET author_id = ? WHERE user_id = ? AND rev > ?
            AND note_id IN (SELECT id FROM notes WHERE user_id = ? AND rev > ?)
            """, author, userID, before, userID, before)
        return result
    }
}
