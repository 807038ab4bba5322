import Synchronization

/// Serialises every use of one `Database` connection behind a lock, so threads can share it.
///
/// `@unchecked Sendable` is sound because the connection is private and only ever touched while
/// `lock` is held; no `Database` or `Statement` reference leaves the closures below (their
/// types are not `Sendable`, so the compiler stops them from escaping to another thread).
public final class DatabaseQueue: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var database: Database?

    /// Opens `path` and runs `migrator` before the first use; `beforeCommit` (see
    /// `Database.beforeCommit`) applies from then on, to a schema the migrations completed.
    public init(path: String, options: Database.Options = .init(), migrator: Migrator? = nil,
                beforeCommit: ((Database) throws -> Void)? = nil) throws {
        let database = try Database(path: path, options: options)
        try migrator?.migrate(database)
        database.beforeCommit = beforeCommit
        self.database = database
    }

    /// Runs `body` with exclusive access to the connection.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in
            guard let database else { throw DatabaseError(code: 21, message: "the database is closed") }
            return try body(database)
        }
    }

    /// Runs `body` inside one transaction with exclusive access to the connection.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try read { database in try database.transaction { try body(database) } }
    }

    /// Closes the connection; later calls throw.
    public func close() throws {
        try lock.withLock { _ in
            try database?.close()
            database = nil
        }
    }
}
