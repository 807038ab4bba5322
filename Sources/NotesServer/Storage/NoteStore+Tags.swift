/// Reading the notes that may carry a tag, for `NoteTags`.
extension NoteStore {
    /// `userID`'s live notes, with their content, that may carry a tag: holding `#`, or
    /// beginning with front matter (`---`); the `limit` most recently changed.
    func notesThatMayCarryTags(userID: Int64, limit: Int) throws -> [NoteRecord] {
        try database.read { db in
            try db.query("""
                SELECT \(NoteRecord.columns(of: "n", withContent: true)) FROM notes n
                WHERE n.user_id = ? AND n.deleted = 0 AND n.kind = 'note' AND (n.content LIKE '%#%' OR n.content LIKE '---%')
                ORDER BY n.updated_at DESC, n.path LIMIT ?
                """, [userID, limit]) { try NoteRecord(row: $0, withContent: true) }
        }
    }
}
