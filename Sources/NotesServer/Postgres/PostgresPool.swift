import Foundation
import NotesCore
import Synchronization

/// A bounded set of PostgreSQL connections, each lent to one worker thread at a time.
///
/// At most `size` connections exist (`--db-pool-size`; one per HTTP worker thread is enough,
/// since a handler holds one connection for its request). They open on demand; a worker that
/// finds all in use waits up to `checkoutTimeout` for one to come back, then fails, so a stuck
/// database shows up as errors rather than a server that hangs.
///
/// Health: a connection that comes back inside a transaction (its worker threw mid-way) is
/// rolled back, and dropped if that fails; one that lost its server is re-established on its
/// next checkout; one idle longer than `idleCheck` is pinged first (a server restart or a
/// proxy's idle timeout is found here, not by a worker's statement).
///
/// `@unchecked Sendable` is sound because the connections are only touched under `condition`'s
/// lock, or by the one worker that checked one out (and no connection escapes `withConnection`:
/// `PostgresConnection` is not `Sendable`).
final class PostgresPool: @unchecked Sendable {
    let url: PostgresURL
    let size: Int
    /// How long a worker waits for a free connection before failing.
    let checkoutTimeout: TimeInterval
    /// How long a connection may sit idle before it is pinged when next checked out.
    let idleCheck: Duration
    private let extra: [String: String]
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    /// Connections that exist, idle or lent out.
    private var opened = 0
    private var isClosed = false
    /// The connection the current thread holds from this pool, if any.
    private let held = ThreadLocalConnection()
    /// Checkouts, the time spent waiting for them, and the connections lent out (the metrics).
    let waits = WaitTally()
    /// Connections that could not be opened or were lost and could not be re-established.
    let connectionErrors = Atomic<Int>(0)

    /// Makes a pool and opens its first connection, so a wrong URL or an unreachable server
    /// fails here, at start, with libpq's reason.
    init(url: PostgresURL, size: Int, checkoutTimeout: TimeInterval = 30, idleCheck: Duration = .seconds(10),
         applicationName: String = "notes-server") throws {
        precondition(size >= 1, "a pool needs at least one connection")
        self.url = url
        self.size = size
        self.checkoutTimeout = checkoutTimeout
        self.idleCheck = idleCheck
        self.extra = ["application_name": applicationName]
        let first = try PostgresConnection(url: url, extra: extra)
        idle.append(first)
        opened = 1
    }

    /// Runs `body` with a connection of its own for the duration.
    ///
    /// Nested calls on one thread (a store that reads inside another's write, the blob store
    /// inside a content write) get the connection the thread already holds, so a nested
    /// transaction is a savepoint of the outer one. A second checkout would wait for a free
    /// connection while holding one: with every connection held that way, all would wait.
    /// - Throws: `PostgresError` when no connection frees up in time or none can be opened.
    @discardableResult
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        if let connection = held.connection { return try body(connection) }
        let asked = ContinuousClock.now
        let connection: PostgresConnection
        do {
            connection = try checkOut()
        } catch {
            waits.failed(after: .now - asked)
            throw error
        }
        waits.acquired(after: .now - asked)
        held.connection = connection
        defer {
            held.connection = nil
            checkIn(connection)
            waits.released()
        }
        return try body(connection)
    }

    /// Runs `body` in one transaction on a connection of its own (`SERIALIZABLE` unless told
    /// otherwise), run again when it loses a serialization race (see `PostgresConnection.transaction`).
    @discardableResult
    func transaction<T>(isolation: PostgresConnection.Isolation = .serializable, readOnly: Bool = false,
                        _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.transaction(isolation: isolation, readOnly: readOnly) { try body(connection) }
        }
    }

    /// Connections that exist now, and how many of them are idle (tests and diagnostics).
    var counts: (opened: Int, idle: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (opened, idle.count)
    }

    /// Closes every idle connection and refuses new checkouts; lent ones close as they come back.
    func close() {
        condition.lock()
        isClosed = true
        let closing = idle
        idle.removeAll()
        opened -= closing.count
        condition.broadcast()
        condition.unlock()
        for connection in closing { connection.close() }
    }

    private func checkOut() throws -> PostgresConnection {
        let deadline = Date().addingTimeInterval(checkoutTimeout)
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw PostgresError(sqlState: "08003", message: "the connection pool is closed")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                return try healthy(connection)
            }
            if opened < size {
                opened += 1
                condition.unlock()
                do {
                    return try PostgresConnection(url: url, extra: extra)
                } catch {
                    connectionErrors.add(1, ordering: .relaxed)
                    forget()
                    throw error
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw PostgresError(sqlState: "53300", message: "all \(size) database connections stayed busy for \(Int(checkoutTimeout)) s")
            }
        }
    }

    /// `connection` if it is usable (re-established or pinged when needed), else an error, after
    /// which the pool forgets it.
    private func healthy(_ connection: PostgresConnection) throws -> PostgresConnection {
        if connection.isIdle && ContinuousClock.now - connection.lastUsed < idleCheck { return connection }
        if connection.isIdle && connection.ping() { return connection }
        if connection.reconnect() && connection.isIdle { return connection }
        connection.close()
        connectionErrors.add(1, ordering: .relaxed)
        forget()
        throw PostgresError(sqlState: "08006", message: "lost the connection to \(url) and could not re-establish it")
    }

    private func checkIn(_ connection: PostgresConnection) {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        condition.lock()
        if isClosed {
            opened -= 1
            condition.unlock()
            connection.close()
            return
        }
        // One that lost its server waits at the far end, and is repaired when its turn comes.
        if connection.isIdle { idle.append(connection) } else { idle.insert(connection, at: 0) }
        condition.signal()
        condition.unlock()
    }

    /// Gives back the slot of a connection that could not be opened or was dropped.
    private func forget() {
        condition.lock()
        opened -= 1
        condition.signal()
        condition.unlock()
    }
}

/// One connection per thread, kept in a POSIX thread-specific slot: the pool's bodies are
/// synchronous, so the thread that checked a connection out is the one that runs with it.
private final class ThreadLocalConnection: @unchecked Sendable {
    // @unchecked: the key is written once, in init; each thread reads only its own slot.
    private var key = pthread_key_t()

    init() {
        pthread_key_create(&key, nil)
    }

    deinit {
        pthread_key_delete(key)
    }

    /// The current thread's connection (not retained: the pool owns it while lent out).
    var connection: PostgresConnection? {
        get { pthread_getspecific(key).map { Unmanaged<PostgresConnection>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }
}
