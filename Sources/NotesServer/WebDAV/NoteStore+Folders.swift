import NotesCore

/// Entries read by path and by folder, as WebDAV sees a space: folders are not stored, a
/// folder exists because an entry's path runs through it (or WebDAV made it empty:
/// `DAVFolderStore`).
///
/// Paths compare byte by byte (SQLite's default, PostgreSQL's `COLLATE "C"`), so the entries of
/// one folder, and of each of its subfolders, lie together in path order: a listing reads the
/// files of a folder and jumps over each subfolder's contents with one bounded query, never
/// holding more than a page of rows.
extension NoteStore {
    /// Rows one listing query reads.
    static let folderPageSize = 256

    /// The live entry at exactly `path`, or nil.
    func liveEntry(userID: Int64, path: String) throws -> NoteRecord? {
        try database.read { db in try Self.liveEntry(db, userID: userID, path: path) }
    }

    static func liveEntry(_ db: some SQLConnection, userID: Int64, path: String) throws -> NoteRecord? {
        try db.first("SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND deleted = 0 AND path = ?", [userID, path]) {
            try NoteRecord(row: $0, withContent: false)
        }
    }

    /// Whether a live entry lies inside the folder `path` (`""`: the root, always true here).
    static func holdsEntries(_ db: some SQLConnection, userID: Int64, folder path: String) throws -> Bool {
        guard !path.isEmpty else { return true }
        let column = pathColumn(db)
        return try db.first("SELECT 1 FROM notes WHERE user_id = ? AND deleted = 0 AND \(column) > ? AND \(column) < ? LIMIT 1",
                            [userID, path + "/", path + "0"]) { _ in true } ?? false
    }

    /// Every live entry inside the folder `path`, in path order (`withContent`: notes' text too).
    static func entries(_ db: some SQLConnection, userID: Int64, inside path: String, withContent: Bool = false) throws -> [NoteRecord] {
        let column = pathColumn(db)
        let columns = withContent ? NoteRecord.columnsWithContent : NoteRecord.columns
        if path.isEmpty {
            return try db.query("SELECT \(columns) FROM notes WHERE user_id = ? AND deleted = 0 ORDER BY \(column)", [userID]) {
                try NoteRecord(row: $0, withContent: withContent)
            }
        }
        return try db.query("""
            SELECT \(columns) FROM notes WHERE user_id = ? AND deleted = 0 AND \(column) > ? AND \(column) < ? ORDER BY \(column)
            """, [userID, path + "/", path + "0"]) { try NoteRecord(row: $0, withContent: withContent) }
    }

    /// A member of a folder as a listing meets it.
    enum FolderMember {
        case file(NoteRecord)
        /// A subfolder, by its name inside the folder.
        case folder(String)
    }

    /// Hands `body` the members of the folder `path` in path order, page by page: each file,
    /// and each subfolder once (its entries skipped with one query).
    func eachMember(userID: Int64, folder path: String, _ body: (FolderMember) throws -> Void) throws {
        let prefix = path.isEmpty ? "" : path + "/"
        let upper = path.isEmpty ? nil : path + "0"
        var lower = (value: prefix, inclusive: false)
        while true {
            let page = try database.read { db in
                try Self.page(db, userID: userID, from: lower, below: upper, limit: Self.folderPageSize)
            }
            var jumped = false
            for entry in page {
                let rest = entry.path.dropFirst(prefix.count)
                if let slash = rest.firstIndex(of: "/") {
                    let name = String(rest[..<slash])
                    try body(.folder(name))
                    // Past every path under `prefix + name + "/"`: "0" follows "/" in byte order.
                    lower = (prefix + name + "0", true)
                    jumped = true
                    break
                }
                try body(.file(entry))
                lower = (entry.path, false)
            }
            if !jumped && page.count < Self.folderPageSize { return }
        }
    }

    private static func page(_ db: some SQLConnection, userID: Int64, from lower: (value: String, inclusive: Bool), below upper: String?,
                             limit: Int) throws -> [NoteRecord] {
        let column = pathColumn(db)
        var sql = "SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND deleted = 0 AND \(column) \(lower.inclusive ? ">=" : ">") ?"
        var values: [any SQLBindable] = [userID, lower.value]
        if let upper {
            sql += " AND \(column) < ?"
            values.append(upper)
        }
        sql += " ORDER BY \(column) LIMIT ?"
        values.append(limit)
        return try db.query(sql, values) { try NoteRecord(row: $0, withContent: false) }
    }

    /// The path column compared byte by byte on either backend.
    static func pathColumn(_ db: some SQLConnection) -> String {
        db.dialect == .postgres ? #"path COLLATE "C""# : "path"
    }
}
