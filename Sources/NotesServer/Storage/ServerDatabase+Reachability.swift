import NotesCore

extension ServerDatabase {
    /// Whether the database can serve now (the readiness probe): one statement read on a pooled
    /// connection, and on SQLite the file still at its path. A file deleted, moved or replaced
    /// while open is no database the server can keep writing to (its writes are refused).
    /// - Throws: what stands in the way: the database's error, or `DatabaseError` for a moved file.
    func checkReachable() throws {
        switch self {
        case .sqlite(let queue):
            let moved = try queue.read { db in
                _ = try db.scalarInt("SELECT 1")
                return db.fileHasMoved
            }
            if moved {
                throw DatabaseError(code: 8 /* SQLITE_READONLY */, message: "the database file was deleted, moved or replaced while open")
            }
        case .postgres:
            _ = try readStatement { try $0.scalarInt("SELECT 1") }
        }
    }
}
