/// The paths of a user's live entries, what their wiki links resolve against, and the notes their embeds show.
extension NoteStore {
    /// Every live path of `userID`, notes and attachments alike, in one read.
    func livePaths(userID: Int64) throws -> [String] {
        try database.read { db in try Self.livePaths(db, userID: userID) }
    }

    /// The content of `userID`'s live note at `path`, or nil when there is none (or it is a file):
    /// what a `![[Note]]` embed shows.
    func liveNoteContent(userID: Int64, path: String) throws -> String? {
        try database.read { db in
            try db.first("SELECT content FROM notes WHERE user_id = ? AND path = ? AND deleted = 0 AND kind = 'note'", [userID, path]) {
                $0.isNull(0) ? "" : $0.string(0)
            }
        }
    }

    /// Every live path of `userID`, read in `db`'s transaction.
    static func livePaths(_ db: some SQLConnection, userID: Int64) throws -> [String] {
        try db.query("SELECT path FROM notes WHERE user_id = ? AND deleted = 0", [userID]) { $0.string(0) }
    }
}
