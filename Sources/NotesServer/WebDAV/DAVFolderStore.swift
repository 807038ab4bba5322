import NotesCore

/// Folders WebDAV clients made with MKCOL, kept so an empty one can be listed: the one owner of
/// the table `dav_folders` (schema version 22).
///
/// Sync carries entries, not folders, so a folder that holds nothing is WebDAV's alone, as in
/// git: it is listed here until it is deleted, and a synced folder shows it once a file is put
/// in it. A folder that holds entries exists by their paths whether or not it has a row.
enum DAVFolderStore {
    /// Records the folder `path` of `space`; one that exists already stays as it is.
    static func make(_ db: some SQLConnection, userID: Int64, space: String, path: String, now: Int64) throws {
        _ = try db.run("""
            INSERT INTO dav_folders (user_id, space, path, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, space, path) DO NOTHING
            """, userID, space, path, now)
    }

    /// When the folder `path` was made, or nil when it has no row.
    static func createdAt(_ db: some SQLConnection, userID: Int64, space: String, path: String) throws -> Int64? {
        try db.scalarInt("SELECT created_at FROM dav_folders WHERE user_id = ? AND space = ? AND path = ?", [userID, space, path])
    }

    /// The folders with rows inside `path` (its subfolders at every depth), in path order.
    static func folders(_ db: some SQLConnection, userID: Int64, space: String, inside path: String) throws -> [String] {
        let column = NoteStore.pathColumn(db)
        if path.isEmpty {
            return try db.query("SELECT path FROM dav_folders WHERE user_id = ? AND space = ? ORDER BY \(column)", [userID, space]) { $0.string(0) }
        }
        return try db.query("""
            SELECT path FROM dav_folders WHERE user_id = ? AND space = ? AND \(column) > ? AND \(column) < ? ORDER BY \(column)
            """, [userID, space, path + "/", path + "0"]) { $0.string(0) }
    }

    /// Forgets the folder `path` and every folder inside it.
    static func remove(_ db: some SQLConnection, userID: Int64, space: String, path: String) throws {
        let column = NoteStore.pathColumn(db)
        _ = try db.run("""
            DELETE FROM dav_folders WHERE user_id = ? AND space = ? AND (path = ? OR (\(column) > ? AND \(column) < ?))
            """, userID, space, path, path + "/", path + "0")
    }
}
