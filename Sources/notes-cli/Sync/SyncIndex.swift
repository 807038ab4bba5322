import NotesCore

/// One tracked note in the local index: its merge base and the file's metadata at last sync.
struct IndexRow: Sendable, Equatable {
    var base: SyncBase
    /// The file's relative path on disk (the bytes the walk saw; NFD on some macOS volumes).
    var diskPath: String
    var stat: FileStat
}

/// A file's size, modification time and inode: equal values mean "unchanged, do not read"
/// (docs/architecture.md, Sync invariants 11). `FileStat.unknown` never equals a real file.
struct FileStat: Sendable, Equatable, Hashable {
    var size: Int64
    var mtimeNanoseconds: Int64
    var inode: UInt64

    static let unknown = FileStat(size: -1, mtimeNanoseconds: -1, inode: 0)
}

/// The local index in `.notes/index.sqlite`: tracked notes and the changes cursor.
///
/// Written in one transaction per applied page or batch, together with the cursor, so a sync
/// killed at any point resumes from a consistent state (docs/architecture.md, Sync invariants 7).
struct SyncIndex: Sendable {
    let database: DatabaseQueue

    static let migrator = Migrator([
        .init(version: 1, name: "index", sql: """
            CREATE TABLE notes (
                id TEXT PRIMARY KEY,
                path TEXT NOT NULL,
                disk_path TEXT NOT NULL,
                rev INTEGER NOT NULL,
                hash TEXT NOT NULL,
                size INTEGER NOT NULL,
                mtime_ns INTEGER NOT NULL,
                inode INTEGER NOT NULL
            );
            CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            """),
        // Why each conflict copy made here was made, for `notes conflicts`.
        .init(version: 2, name: "conflicts", sql: """
            CREATE TABLE conflicts (
                copy TEXT PRIMARY KEY,
                path TEXT NOT NULL,
                reason TEXT NOT NULL,
                made_at INTEGER NOT NULL
            );
            """),
    ])

    /// Opens (creating) the index at `path`.
    init(path: String) throws {
        var options = Database.Options()
        // A power cut may lose the last index commits, never corrupt them; sync recovers from an
        // index behind the files by hashing, so the per-commit fsync is not worth its cost.
        options.synchronousFull = false
        options.busyTimeoutMilliseconds = 2_000
        database = try DatabaseQueue(path: path, options: options, migrator: Self.migrator)
    }

    /// Every tracked note.
    func rows() throws -> [IndexRow] {
        try table().indexRows()
    }

    /// Every tracked note's row as read, its texts as bytes (`IndexTable`): what a sync reads
    /// first, making `IndexRow`s only if the folder or the server changed.
    func table() throws -> IndexTable {
        try database.read { db in
            var table = IndexTable()
            // A file's name on disk is nearly always its path: SQLite says so (NULL), and the row
            // keeps no copy.
            try db.each("""
                SELECT id, path, CASE WHEN disk_path = path THEN NULL ELSE disk_path END, rev, hash, size, mtime_ns, inode FROM notes
                """) { row in
                row.withBytes(0) { id in
                    row.withBytes(1) { path in
                        row.withBytes(4) { hash in
                            row.withBytes(2) { disk in
                                let stat = FileStat(size: row.int64(5), mtimeNanoseconds: row.int64(6), inode: UInt64(bitPattern: row.int64(7)))
                                table.append(id: id, path: path, diskPath: row.isNull(2) ? nil : disk, hash: hash, rev: row.int64(3), stat: stat)
                            }
                        }
                    }
                }
            }
            return table
        }
    }

    /// The changes cursor; `nil` before the first completed page.
    func cursor() throws -> String? {
        try database.read { db in try db.scalarString("SELECT value FROM state WHERE key = 'cursor'") }
    }

    /// Applies `changes` (and the new cursor, if any) in one transaction.
    ///
    /// Consecutive upserts go `upsertRows` rows to a statement: SQLite's cost per statement run
    /// (starting it, ending it, clearing and binding its parameters) was about half of an
    /// upsert's instructions, and an upload writes every note twice (its id reserved, then its
    /// result), 20,000 statements for 10,000 notes. Rows are applied in order within a
    /// statement, so the outcome is the one-row-at-a-time one, a row given twice included.
    func commit(_ changes: [IndexChange], cursor: String? = nil) throws {
        guard !changes.isEmpty || cursor != nil else { return }
        try database.write { db in
            var pending: [IndexRow] = []
            pending.reserveCapacity(min(changes.count, Self.upsertRows))
            for change in changes {
                switch change {
                case .upsert(let row):
                    pending.append(row)
                    if pending.count == Self.upsertRows { try Self.upsert(pending, in: db); pending.removeAll(keepingCapacity: true) }
                case .remove(let id):
                    try Self.upsert(pending, in: db)
                    pending.removeAll(keepingCapacity: true)
                    try db.run("DELETE FROM notes WHERE id = ?", id.value)
                }
            }
            try Self.upsert(pending, in: db)
            if let cursor {
                try db.run("INSERT OR REPLACE INTO state (key, value) VALUES ('cursor', ?)", cursor)
            }
        }
    }

    /// The most rows one upsert statement writes (8 parameters each, far below SQLite's limit).
    static let upsertRows = 32

    /// Writes `rows` in order: whole statements of `upsertRows` rows, the rest in statements of
    /// 16, 8, 4, 2 and 1, so at most six statements are ever prepared and cached.
    private static func upsert(_ rows: [IndexRow], in db: Database) throws {
        var start = 0
        var size = upsertRows
        while start < rows.count {
            while rows.count - start < size { size /= 2 }
            var values: [any SQLBindable] = []
            values.reserveCapacity(size * 8)
            for row in rows[start ..< start + size] {
                values.append(row.base.id.value)
                values.append(row.base.path)
                values.append(row.diskPath)
                values.append(row.base.rev)
                values.append(row.base.hash)
                values.append(row.stat.size)
                values.append(row.stat.mtimeNanoseconds)
                values.append(Int64(bitPattern: row.stat.inode))
            }
            try db.each(upsertSQL(rows: size), values) { _ in }
            start += size
        }
    }

    /// An upsert, not `INSERT OR REPLACE`: a row already there (every note an upload records
    /// twice, its id reserved and then its result) is updated in place rather than deleted from
    /// the table and the id index and inserted into both again.
    private static func upsertSQL(rows: Int) -> String {
        upsertSQLs[rows] ?? makeUpsertSQL(rows: rows)
    }

    /// The statement for each row count used, made once.
    private static let upsertSQLs: [Int: String] = Dictionary(uniqueKeysWithValues: [1, 2, 4, 8, 16, 32].map { ($0, makeUpsertSQL(rows: $0)) })

    private static func makeUpsertSQL(rows: Int) -> String {
        "INSERT INTO notes (id, path, disk_path, rev, hash, size, mtime_ns, inode) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
            + """
             ON CONFLICT (id) DO UPDATE SET path = excluded.path, disk_path = excluded.disk_path, rev = excluded.rev,
                hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode
            """
    }

    /// Records why the conflict copy `record.copy` was made (replacing an older record of that name).
    func recordConflict(_ record: ConflictRecord) throws {
        try database.write { db in
            _ = try db.run("INSERT OR REPLACE INTO conflicts (copy, path, reason, made_at) VALUES (?, ?, ?, ?)",
                       record.copy, record.path, record.reason.rawValue, record.madeAt)
        }
    }

    /// Every conflict copy recorded here, by copy path.
    func conflictRecords() throws -> [String: ConflictRecord] {
        let records = try database.read { db in
            try db.compactQuery("SELECT copy, path, reason, made_at FROM conflicts") { row -> ConflictRecord? in
                guard let reason = ConflictReason(rawValue: row.string(2)) else { return nil }
                return ConflictRecord(copy: row.string(0), path: row.string(1), reason: reason, madeAt: row.int64(3))
            }
        }
        return Dictionary(records.map { ($0.copy, $0) }, uniquingKeysWith: { $1 })
    }

    /// Forgets the record of a conflict copy that was settled.
    func forgetConflict(copy: String) throws {
        try database.write { db in _ = try db.run("DELETE FROM conflicts WHERE copy = ?", copy) }
    }

    /// `PRAGMA integrity_check`.
    func integrityCheck() throws -> String {
        try database.read { db in try db.integrityCheck() }
    }

    /// Freezes what this connection reads at the index as it is now, for a dry run beside a
    /// sync that may be writing it (`notes status` while `notes sync --watch` runs): every read
    /// from here on sees the same committed state, rows and cursor together, never half of a
    /// commit, and any write fails. In WAL mode the open read transaction holds no lock that
    /// stops the other process's commits; SQLite keeps the old pages for this reader instead.
    /// - Throws: `DatabaseError` when the index cannot be read.
    func freezeForReading() throws {
        try database.withWriter { db in
            try db.execute("PRAGMA query_only = ON")
            // A deferred transaction takes its snapshot at its first read, just below.
            try db.execute("BEGIN")
            _ = try db.scalarString("SELECT value FROM state WHERE key = 'cursor'")
        }
    }

    func close() throws {
        try database.close()
    }
}

/// One change to the index.
enum IndexChange: Sendable, Equatable {
    case upsert(IndexRow)
    case remove(NoteID)
}

/// Why a conflict copy was made, kept in the index from when it was made.
struct ConflictRecord: Sendable, Equatable {
    /// The copy's path.
    var copy: String
    /// The path of the note the copy belongs to.
    var path: String
    var reason: ConflictReason
    /// Milliseconds since 1970.
    var madeAt: Int64
}
