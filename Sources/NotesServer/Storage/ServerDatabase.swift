import NotesCore

/// The database the stores run on: SQLite's file (the embedded default) or a PostgreSQL database
/// that several servers share.
///
/// Stores ask for a connection through `read` or `write` and run the same statements on either
/// (see `SQLConnection`). What the two promise:
/// - `write` runs its body in one transaction with one writer at a time for what it touches:
///   SQLite's single writing connection under `BEGIN IMMEDIATE`; on PostgreSQL a `SERIALIZABLE`
///   transaction, run again from the top when it lost a race, so a body must do nothing outside
///   the database that cannot be repeated.
/// - `read` sees one consistent state: a SQLite reader (WAL snapshot per statement, or per
///   transaction the body opens); on PostgreSQL one `REPEATABLE READ READ ONLY` transaction, so
///   every statement of the body reads the same snapshot (the changes feed relies on it).
enum ServerDatabase: Sendable {
    case sqlite(DatabaseQueue)
    case postgres(PostgresPool)

    /// Runs `body` on a connection that reads.
    @discardableResult
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        switch self {
        case .sqlite(let queue):
            try queue.read { try body($0) }
        case .postgres(let pool):
            try pool.transaction(isolation: .repeatableRead, readOnly: true) { try body($0) }
        }
    }

    /// Runs `body`, which reads with exactly one statement, on a connection that reads: one
    /// statement sees one snapshot by itself, so on PostgreSQL it runs without the transaction
    /// `read` opens around it (two round trips fewer: the token and the note of every GET).
    @discardableResult
    func readStatement<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        switch self {
        case .sqlite(let queue):
            try queue.read { try body($0) }
        case .postgres(let pool):
            try pool.withConnection { try body($0) }
        }
    }

    /// Runs `body` in one writing transaction.
    @discardableResult
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        switch self {
        case .sqlite(let queue):
            try queue.write { try body($0) }
        case .postgres(let pool):
            try pool.transaction(isolation: .serializable) { try body($0) }
        }
    }

    /// Runs `body` in one writing transaction that waits first for any other holding `key`,
    /// on any server: for writes that many requests make to one row at once (refreshes of one
    /// token). On PostgreSQL a session-level advisory lock is taken *before* the transaction
    /// begins, so its snapshot already shows what the previous holder committed; without it,
    /// such writers abort each other (serialization failures, deadlocks on the unique index)
    /// faster than their retries get through. SQLite's one writer already does this.
    @discardableResult
    func write<T>(serializedBy key: Int64, _ body: (any SQLConnection) throws -> T) throws -> T {
        switch self {
        case .sqlite(let queue):
            return try queue.write { try body($0) }
        case .postgres(let pool):
            return try pool.withConnection { connection in
                // Nested in another write (same connection), that write's transaction already decides.
                let locks = !connection.isInTransaction
                if locks { try connection.run("SELECT pg_advisory_lock(?)", key) }
                defer { if locks { _ = try? connection.run("SELECT pg_advisory_unlock(?)", key) } }
                return try connection.transaction(isolation: .serializable) { try body(connection) }
            }
        }
    }

    /// Runs `body` with the writing connection to itself, outside any transaction (the body
    /// opens its own): on SQLite, no other write can start meanwhile; on PostgreSQL it is one
    /// pooled connection, and exclusion comes from the body's transactions and row locks.
    @discardableResult
    func withWriter<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        switch self {
        case .sqlite(let queue):
            try queue.withWriter { try body($0) }
        case .postgres(let pool):
            try pool.withConnection { try body($0) }
        }
    }

    /// Closes every connection.
    func close() throws {
        switch self {
        case .sqlite(let queue): try queue.close()
        case .postgres(let pool): pool.close()
        }
    }

    /// The database, when several servers may share it (PostgreSQL): state that must be one
    /// across them (the login throttle's counts) lives there; nil for SQLite, whose single
    /// server keeps such state in memory.
    var sharedByServers: ServerDatabase? {
        if case .postgres = self { return self }
        return nil
    }

    /// The SQLite queue, for what only SQLite has (its file's size limit, online backup).
    var sqliteQueue: DatabaseQueue? {
        if case .sqlite(let queue) = self { return queue }
        return nil
    }
}
