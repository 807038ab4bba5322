import CSQLite
#if canImport(Glibc)
import Glibc
/// `close(2)`, which the `Database.close()` method would otherwise shadow.
private let closeDescriptor = Glibc.close
#elseif canImport(Darwin)
import Darwin
private let closeDescriptor = Darwin.close
#endif

/// One SQLite connection: prepared-statement cache, transactions, WAL and a busy timeout.
///
/// Not thread-safe; share it through `DatabaseQueue`, which serialises access.
public final class Database {
    /// How a connection is opened.
    public struct Options: Sendable {
        /// Open an existing database read-only instead of creating/writing it.
        public var readOnly = false
        /// How long a writer waits for another connection's lock before failing with busy.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// `FULL` survives power loss after every commit; `NORMAL` (in WAL) may lose the last
        /// commits on power loss but never corrupts. The server keeps notes, so it uses `FULL`.
        public var synchronousFull = true
        /// The most the database file may grow to, in bytes (`PRAGMA max_page_count`, set on
        /// this connection only): a write that needs more fails with a `.full` error, as on a
        /// full disk, and works again once pages are freed. `nil`: as large as the disk allows.
        public var maxSizeBytes: Int64?
        /// Refuse write transactions (a `.readOnly` error) once the file was deleted, renamed or
        /// replaced while open: writes would land in a file nobody will open again, and be lost.
        public var refusesWritesWhenFileMoved = false

        public init() {}
    }

    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    private var transactionDepth = 0
    private var isClosed = false
    private let refusesWritesWhenFileMoved: Bool
    /// The file the connection was opened on.
    public let path: String

    /// Opens (creating if needed) the database at `path`, switches it to WAL and verifies that.
    /// - Throws: `DatabaseError` when the file cannot be opened or is not a usable database.
    public init(path: String, options: Options = .init()) throws(DatabaseError) {
        var connection: OpaquePointer?
        let flags = (options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(connection)  // a failed open still allocates a handle
            throw DatabaseError(code: code, message: "\(message): \(path)")
        }
        self.handle = connection
        self.path = path
        self.refusesWritesWhenFileMoved = options.refusesWritesWhenFileMoved
        do throws(DatabaseError) {
            sqlite3_busy_timeout(connection, options.busyTimeoutMilliseconds)
            sqlite3_extended_result_codes(connection, 1)
            if !options.readOnly {
                let mode = try scalarString("PRAGMA journal_mode=WAL")
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError(code: SQLITE_ERROR, message: "cannot switch \(path) to WAL (journal_mode is \(mode ?? "unknown"))")
                }
            }
            try execute("PRAGMA foreign_keys=ON")
            try execute(options.synchronousFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            if let maxSizeBytes = options.maxSizeBytes { try limitSize(toBytes: maxSizeBytes) }
        } catch {
            cache.removeAll()
            sqlite3_close_v2(connection)
            isClosed = true
            throw error
        }
    }

    deinit {
        if !isClosed {
            cache.removeAll()
            sqlite3_close_v2(handle)
        }
    }

    /// Closes the connection, finalising cached statements first.
    /// - Throws: `DatabaseError` when SQLite refuses (a statement is still in use elsewhere).
    public func close() throws(DatabaseError) {
        guard !isClosed else { return }
        cache.removeAll()
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw error(code: code, sql: nil) }
        isClosed = true
    }

    /// Runs SQL without parameters, possibly several statements (schema, pragmas).
    public func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw DatabaseError(code: code, message: text, sql: sql)
        }
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    public func statement(_ sql: String) throws(DatabaseError) -> Statement {
        if let cached = cache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs a write with bound values; returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: any SQLBindable...) throws(DatabaseError) -> Int {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Every row of a query, each mapped by `row` while the statement points at it.
    public func query<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (Statement) throws -> T) throws -> [T] {
        try compactQuery(sql, values) { try row($0) }  // each value wrapped, so none is skipped
    }

    /// Every row of a query that `row` maps to a value; a row it maps to `nil` (one this version
    /// cannot read, say) is skipped, so callers get a plain array without a second pass.
    public func compactQuery<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (Statement) throws -> T?) throws -> [T] {
        var rows: [T] = []
        try each(sql, values) { statement in
            if let value = try row(statement) { rows.append(value) }
        }
        return rows
    }

    /// Calls `row` for every row of a query while the statement points at it, keeping nothing:
    /// for a reader that gathers the rows into a store of its own (the client's index).
    public func each(_ sql: String, _ values: [any SQLBindable] = [], row: (Statement) throws -> Void) throws {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() { try row(statement) }
    }

    /// The first row of a query, or `nil`.
    public func first<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (Statement) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? row(statement) : nil
    }

    /// The first column of the first row as an integer, or `nil` when there is no row.
    public func scalarInt(_ sql: String, _ values: [any SQLBindable] = []) throws(DatabaseError) -> Int64? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
    }

    /// The first column of the first row as text, or `nil` when there is no row.
    public func scalarString(_ sql: String, _ values: [any SQLBindable] = []) throws(DatabaseError) -> String? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.optionalString(0) : nil
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`, so writers queue at the start instead of
    /// failing mid-way); nested calls become savepoints. Any thrown error rolls back, and so does
    /// a failed COMMIT (a full disk fails there, when the WAL is written and FTS5 flushes).
    ///
    /// The nesting depth is restored exactly once, whatever fails: a depth left off by one made
    /// every later write on the connection run `SAVEPOINT sp-1` and fail until a restart.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "sp\(depth)"
        if depth == 0 {
            if refusesWritesWhenFileMoved { try requireFileInPlace() }
            // A rollback that itself failed (I/O error) can leave SQLite inside a transaction:
            // end it here rather than fail every later write with "cannot start a transaction".
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            try execute("BEGIN IMMEDIATE")
        } else {
            try execute("SAVEPOINT \(savepoint)")
        }
        transactionDepth = depth + 1
        defer { transactionDepth = depth }
        let result: T
        do {
            result = try body()
            try execute(depth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
        } catch {
            rollBack(toDepth: depth, savepoint: savepoint)
            throw error
        }
        return result
    }

    /// Undoes the transaction or savepoint opened at `depth`. SQLite may already have rolled a
    /// transaction back by itself after a failed COMMIT (full disk, I/O error): only an open one
    /// is rolled back, so the first error is the one reported.
    private func rollBack(toDepth depth: Int, savepoint: String) {
        if depth == 0 {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
        } else {
            try? execute("ROLLBACK TO \(savepoint)")
            try? execute("RELEASE \(savepoint)")
        }
    }

    /// Whether the connection is inside a transaction (tests check a failure left none open).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the file this connection has open is no longer the one at `path`: deleted,
    /// renamed away or replaced. SQLite's own check (one `stat` of the path against the open
    /// file's inode), cheap enough to run before every write transaction.
    public var fileHasMoved: Bool {
        var moved: Int32 = 0
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return code == SQLITE_OK && moved != 0
    }

    private func requireFileInPlace() throws(DatabaseError) {
        guard fileHasMoved else { return }
        throw DatabaseError(
            code: SQLITE_READONLY | (4 << 8),  // SQLITE_READONLY_DBMOVED, a macro Swift does not import
            message: "the database file \(path) was deleted, moved or replaced while open; writes are refused because they would be lost at restart (restore the file, or restart the server)")
    }

    /// The database's size in bytes (pages in use or free × page size), without the WAL.
    public func sizeBytes() throws(DatabaseError) -> Int64 {
        (try scalarInt("PRAGMA page_count") ?? 0) * (try scalarInt("PRAGMA page_size") ?? 4096)
    }

    /// The size limit in bytes (page count × page size) this connection enforces.
    public func sizeLimitBytes() throws(DatabaseError) -> Int64 {
        let pages = try scalarInt("PRAGMA max_page_count") ?? 0
        return pages * (try scalarInt("PRAGMA page_size") ?? 4096)
    }

    /// Sets `PRAGMA max_page_count` from a size in bytes (at least one page). SQLite never sets
    /// it below the file's current size: a database already larger keeps its size and stops growing.
    private func limitSize(toBytes bytes: Int64) throws(DatabaseError) {
        let pageSize = try scalarInt("PRAGMA page_size") ?? 4096
        // The pragma takes no bound parameter; the value is a number built here, not user text.
        try execute("PRAGMA max_page_count = \(max(1, bytes / pageSize))")
    }

    /// `PRAGMA integrity_check`: `"ok"` for a healthy database, otherwise SQLite's findings.
    public func integrityCheck() throws(DatabaseError) -> String {
        try scalarString("PRAGMA integrity_check") ?? "no answer"
    }

    /// Copies the whole database into a new file at `destination` with SQLite's online backup,
    /// which sees one consistent snapshot while writers carry on. The file is created readable
    /// and writable by its owner only (0600): a backup holds whatever the database holds.
    /// - Throws: `DatabaseError` when `destination` exists already or cannot be written.
    public func backup(to destination: String) throws(DatabaseError) {
        // Created here, exclusively and private, before SQLite opens it (an empty file is an
        // empty database): SQLite would create it with the umask's mode, usually 0644.
        let created = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw DatabaseError(code: SQLITE_CANTOPEN, message: "cannot create backup file \(destination): \(String(cString: strerror(errno)))")
        }
        _ = closeDescriptor(created)
        var target: OpaquePointer?
        let openCode = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard openCode == SQLITE_OK, let target else {
            sqlite3_close_v2(target)
            throw DatabaseError(code: openCode, message: "cannot create backup file \(destination)")
        }
        defer { sqlite3_close_v2(target) }
        guard let backup = sqlite3_backup_init(target, "main", handle, "main") else {
            throw DatabaseError(code: sqlite3_errcode(target), message: String(cString: sqlite3_errmsg(target)))
        }
        var code: Int32
        repeat {
            code = sqlite3_backup_step(backup, 256)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finish == SQLITE_OK else {
            throw DatabaseError(code: code == SQLITE_DONE ? finish : code, message: String(cString: sqlite3_errmsg(target)))
        }
    }

    func error(code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

@available(*, unavailable)
extension Database: Sendable {}
