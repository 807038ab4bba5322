import Synchronization

/// Serialises every use of one `Database` connection behind a lock, so threads can share it,
/// and optionally spreads reads over a few read-only connections of their own.
///
/// Writes (and `withWriter`) always take the one writing connection. With `readers` > 0, `read`
/// runs on one of that many extra connections instead, so reads on several threads run at once
/// and never queue behind a write: in WAL mode each read sees every transaction committed before
/// it began. Readers are `query_only`, so a write slipped into `read` fails instead of racing.
///
/// `@unchecked Sendable` is sound because every connection is private and only ever touched
/// while its lock is held; no `Database` or `Statement` reference leaves the closures below
/// (their types are not `Sendable`, so the compiler stops them from escaping to another thread).
public final class DatabaseQueue: @unchecked Sendable {
    private let lock = SleepingLock()
    private var database: Database?
    private let readers: [ReadConnection]
    /// Which reader a read waits for when every reader is busy.
    private let nextReader = Atomic<Int>(0)
    /// Takes of the writing connection and the time spent waiting for it (a server's metrics).
    public let writerWaits = WaitTally()
    /// The connections this queue holds: the writing one and its readers.
    public var connectionCount: Int { 1 + readers.count }

    /// Opens `path` and runs `migrator` before the first use.
    /// `readers` read-only connections are opened after the migrations, for `read`.
    public init(path: String, options: Database.Options = .init(), migrator: Migrator? = nil,
                readers readerCount: Int = 0) throws {
        let database = try Database(path: path, options: options)
        try migrator?.migrate(database)
        self.database = database
        var readOptions = options
        readOptions.maxSizeBytes = nil
        readOptions.refusesWritesWhenFileMoved = false
        self.readers = try (0..<max(0, readerCount)).map { _ in try ReadConnection(path: path, options: readOptions) }
    }

    /// Runs `body` on a connection of its own for the duration: a reader when there are some
    /// (the first free one, else the next in turn), otherwise the writing connection. Open no
    /// transaction that writes in `body`: use `write`.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard !readers.isEmpty else { return try withWriter(body) }
        for reader in readers {
            if let outcome = reader.runIfFree(body) { return try outcome.get() }
        }
        return try readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count].run(body)
    }

    /// Runs `body` with exclusive access to the writing connection, without opening a
    /// transaction: for what concerns that connection itself (its pragmas, such as the size
    /// limit or `secure_delete`, around a transaction the caller opens).
    @discardableResult
    public func withWriter<T>(_ body: (Database) throws -> T) throws -> T {
        let asked = ContinuousClock.now
        return try lock.withLock {
            writerWaits.acquired(after: .now - asked)
            defer { writerWaits.released() }
            guard let database else { throw DatabaseError(code: 21, message: "the database is closed") }
            return try body(database)
        }
    }

    /// Runs `body` inside one transaction with exclusive access to the writing connection.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try withWriter { database in try database.transaction { try body(database) } }
    }

    /// Closes every connection; later calls throw.
    public func close() throws {
        for reader in readers { try reader.close() }
        try lock.withLock {
            try database?.close()
            database = nil
        }
    }
}

/// One read-only connection of a `DatabaseQueue`, behind its own lock.
private final class ReadConnection: @unchecked Sendable {
    private let lock = SleepingLock()
    private var database: Database?

    init(path: String, options: Database.Options) throws {
        let database = try Database(path: path, options: options)
        try database.execute("PRAGMA query_only = ON")
        self.database = database
    }

    /// Runs `body` if no other thread is using this connection; nil when one is.
    func runIfFree<T>(_ body: (Database) throws -> T) -> Result<T, any Error>? {
        lock.withLockIfAvailable { Self.outcome(database, body) }
    }

    /// Runs `body`, waiting for the connection if another thread is using it.
    func run<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { Self.outcome(database, body) }.get()
    }

    func close() throws {
        try lock.withLock {
            try database?.close()
            database = nil
        }
    }

    private static func outcome<T>(_ database: Database?, _ body: (Database) throws -> T) -> Result<T, any Error> {
        guard let database else { return .failure(DatabaseError(code: 21, message: "the database is closed")) }
        return Result { try body(database) }
    }
}
