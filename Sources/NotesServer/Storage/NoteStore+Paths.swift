/// The paths of a user's live entries: what their wiki links resolve against.
extension NoteStore {
    /// Every live path of `userID`, notes and attachments alike, in one read.
    func livePaths(userID: Int64) throws -> [String] {
        try database.read { db in try Self.livePaths(db, userID: userID) }
    }

    /// Every live path of `userID`, read in `db`'s transaction.
    static func livePaths(_ db: some SQLConnection, userID: Int64) throws -> [String] {
        try db.query("SELECT path FROM notes WHERE user_id = ? AND deleted = 0", [userID]) { $0.string(0) }
    }
}
