import CPQ
import Foundation
import NotesCore

/// One libpq connection: prepared statements with bound parameters, text-format results read
/// through `PostgresRow`, and transactions that run again when they lose a serialization race.
///
/// Every statement is sent with the extended protocol (`PQprepare` once per connection, then
/// `PQexecPrepared`), its values always bound, never spliced into the SQL. Statements are
/// written with SQLite's `?` placeholders (see `PostgresPlaceholders`), so the stores' SQL
/// serves both backends.
///
/// Not thread-safe: libpq allows one thread at a time per connection. Share connections through
/// `PostgresPool`, which hands each to one worker at a time.
final class PostgresConnection {
    /// How strictly a transaction is isolated from concurrent ones (PostgreSQL's levels).
    enum Isolation: Sendable {
        /// Each statement sees what committed before it started.
        case readCommitted
        /// The whole transaction sees one snapshot; a write that races another fails with 40001.
        case repeatableRead
        /// As if transactions ran one at a time; a race fails with 40001 and is run again.
        case serializable

        var sql: String {
            switch self {
            case .readCommitted: "READ COMMITTED"
            case .repeatableRead: "REPEATABLE READ"
            case .serializable: "SERIALIZABLE"
            }
        }
    }

    /// How often a transaction that lost a serialization race (40001) or a deadlock (40P01) is
    /// run again before the error is reported.
    static let maxTransactionAttempts = 10

    private let handle: OpaquePointer
    /// The URL connected to, for messages (its `description` leaves the password out).
    let url: PostgresURL
    private var prepared: [String: String] = [:]
    /// Names statements uniquely for the connection's life (a name is never reused, even after
    /// its statement is dropped from `prepared`: the server may still hold it).
    private var preparedCount = 0
    private var transactionDepth = 0
    private var isClosed = false
    /// When the connection last answered, for the pool's health check of idle connections.
    private(set) var lastUsed = ContinuousClock.now

    /// Connects to `url`, `extra` libpq keywords added (`application_name`, keepalives, ...).
    /// - Throws: `PostgresError` with libpq's reason; the URL in it shows no password.
    init(url: PostgresURL, extra: [String: String] = [:]) throws(PostgresError) {
        let keywords = url.connectionKeywords(extra)
        let connection = Self.withCStrings(keywords.map(\.0)) { names in
            Self.withCStrings(keywords.map(\.1)) { values in
                PQconnectdbParams(names, values, 0)
            }
        }
        guard let connection else {
            throw PostgresError(message: "cannot connect to \(url): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.message(connection)
            PQfinish(connection)  // a failed connection still owns memory
            throw PostgresError(sqlState: "08001", message: "cannot connect to \(url): \(reason)")
        }
        // Notices (such as "extension already exists, skipping") would go to stderr; a server
        // that logs one line per request keeps them out.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.handle = connection
        self.url = url
    }

    deinit {
        if !isClosed { PQfinish(handle) }
    }

    /// Closes the connection. Later calls fail as on a lost connection.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        PQfinish(handle)
    }

    /// Whether the connection is open, idle and outside any transaction: fit to hand to a worker.
    var isIdle: Bool {
        !isClosed && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether a transaction (or a failed one) is open on the connection.
    var isInTransaction: Bool {
        !isClosed && [PQTRANS_INTRANS, PQTRANS_INERROR, PQTRANS_ACTIVE].contains(PQtransactionStatus(handle))
    }

    /// The server process serving this connection (`pg_terminate_backend` takes it).
    var backendPID: Int32 { isClosed ? 0 : PQbackendPID(handle) }

    /// The socket libpq reads from, for waiting on notifications with `poll`.
    var socket: Int32 { isClosed ? -1 : PQsocket(handle) }

    /// Runs SQL without parameters, possibly several statements (schema, `BEGIN`, `LISTEN`).
    func execute(_ sql: String) throws(PostgresError) {
        try checkOpen(sql)
        _ = try check(PQexec(handle, sql), sql: sql)
    }

    /// Runs a statement with `values` bound to its `?` placeholders, returning its whole answer.
    func result(_ sql: String, _ values: [any SQLBindable]) throws(PostgresError) -> PostgresResult {
        try checkOpen(sql)
        var parameters: [Parameter] = []
        parameters.reserveCapacity(values.count)
        defer { for parameter in parameters { parameter.release() } }
        for value in values { parameters.append(try Parameter(value.sqlValue, sql: sql)) }
        let name = try preparedName(for: sql, parameters: parameters)
        let raw = parameters.map { UnsafePointer($0.pointer) }
        let lengths = parameters.map(\.length)
        let formats = parameters.map(\.format)
        let answer = PQexecPrepared(handle, name, Int32(parameters.count), raw, lengths, formats, 0)
        do {
            return try check(answer, sql: sql)
        } catch {
            // "cached plan must not change result type" (the schema changed under a prepared
            // statement): prepare it again next time.
            if error.sqlState == "0A000" { prepared[sql] = nil }
            throw error
        }
    }

    /// The server-side name of `sql` prepared on this connection, preparing it on first use.
    ///
    /// PostgreSQL infers each parameter's type from where it stands. Where nothing says (`? IS
    /// NULL`, a bare `SELECT ?`) it refuses (42P18); the statement is then prepared again with
    /// the types of this call's values (a NULL as text), which serve every later call. (Not
    /// typed from the start: `substr(text, ?)` has no `int8` form, and the context knows best.)
    private func preparedName(for sql: String, parameters: [Parameter]) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let translated = PostgresPlaceholders.translate(sql)
        guard translated.count == parameters.count || translated.count == 0 else {
            throw PostgresError(message: "expected \(translated.count) parameters, got \(parameters.count)", sql: sql)
        }
        preparedCount += 1
        let name = "n\(preparedCount)"
        // A failed prepare aborts the transaction it ran in: inside one, try under a savepoint.
        let guarded = transactionDepth > 0
        if guarded { try execute("SAVEPOINT prepare_untyped") }
        do {
            _ = try check(PQprepare(handle, name, translated.sql, 0, nil), sql: sql)
            if guarded { try execute("RELEASE SAVEPOINT prepare_untyped") }
        } catch where error.sqlState == "42P18" || error.sqlState == "42P08" {
            if guarded { try execute("ROLLBACK TO SAVEPOINT prepare_untyped; RELEASE SAVEPOINT prepare_untyped") }
            // A NULL says nothing of its type: text, the most common in such spots (`? IS NULL OR path = ?`).
            let types = parameters.map { $0.type == 0 ? Oid(25) : $0.type }
            _ = try check(PQprepare(handle, name, translated.sql, Int32(types.count), types), sql: sql)
        }
        prepared[sql] = name
        return name
    }

    /// Runs a write with bound values; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: any SQLBindable...) throws(PostgresError) -> Int {
        try result(sql, values).affectedRows
    }

    /// Every row of a query, each mapped by `row`.
    func query<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (PostgresRow) throws -> T) throws -> [T] {
        let result = try result(sql, values)
        return try (0..<Int32(result.rowCount)).map { try row(PostgresRow(result: result, row: $0)) }
    }

    /// The first row of a query, or `nil`.
    func first<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (PostgresRow) throws -> T) throws -> T? {
        let result = try result(sql, values)
        return result.rowCount > 0 ? try row(PostgresRow(result: result, row: 0)) : nil
    }

    /// The first column of the first row as an integer, or `nil` when there is no row or it is NULL.
    func scalarInt(_ sql: String, _ values: [any SQLBindable] = []) throws(PostgresError) -> Int64? {
        let result = try result(sql, values)
        guard result.rowCount > 0, result.columnCount > 0 else { return nil }
        let row = PostgresRow(result: result, row: 0)
        return row.isNull(0) ? nil : row.int64(0)
    }

    /// The first column of the first row as text, or `nil` when there is no row or it is NULL.
    func scalarString(_ sql: String, _ values: [any SQLBindable] = []) throws(PostgresError) -> String? {
        let result = try result(sql, values)
        guard result.rowCount > 0, result.columnCount > 0 else { return nil }
        return PostgresRow(result: result, row: 0).optionalString(0)
    }

    /// Runs `body` in a `SERIALIZABLE` transaction, so the stores keep the one-writer-at-a-time
    /// semantics they have on SQLite (`BEGIN IMMEDIATE`): see `transaction(isolation:_:)`.
    @discardableResult
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(isolation: .serializable, body)
    }

    /// Runs `body` in a transaction; nested calls become savepoints. A thrown error rolls back.
    ///
    /// When PostgreSQL aborts the transaction because it lost a race with a concurrent one
    /// (serialization failure 40001, deadlock 40P01, which `SERIALIZABLE` reports instead of
    /// letting a lost update through), the whole transaction runs again, up to
    /// `maxTransactionAttempts` times with a short random pause: `body` must therefore do
    /// nothing outside the database that cannot be repeated. A COMMIT that PostgreSQL turned
    /// into a rollback (a statement failed and `body` caught the error) is an error too.
    @discardableResult
    func transaction<T>(isolation: Isolation, readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try savepoint(body) }
        var attempt = 1
        while true {
            // The level comes from a closed enum: no outside text reaches this statement.
            try execute("BEGIN ISOLATION LEVEL \(isolation.sql)\(readOnly ? " READ ONLY" : "")")
            transactionDepth = 1
            do {
                let value = try body()
                try commit()
                transactionDepth = 0
                return value
            } catch {
                transactionDepth = 0
                if isInTransaction { try? execute("ROLLBACK") }
                guard let failure = error as? PostgresError, failure.isRetryable, attempt < Self.maxTransactionAttempts else {
                    throw error
                }
                attempt += 1
                // A short random pause so that the racing transactions do not meet again at once.
                usleep(UInt32.random(in: 1_000...(5_000 * UInt32(attempt))))
            }
        }
    }

    private func commit() throws(PostgresError) {
        let result = try check(PQexec(handle, "COMMIT"), sql: "COMMIT")
        if result.commandStatus == "ROLLBACK" {
            throw PostgresError(sqlState: "25P02", message: "the transaction was rolled back because a statement in it failed", sql: "COMMIT")
        }
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let name = "sp\(depth)"
        try execute("SAVEPOINT \(name)")
        transactionDepth = depth + 1
        defer { transactionDepth = depth }
        do {
            let value = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    /// Re-establishes a lost connection in place; prepared statements are prepared again on use.
    /// - Returns: whether the connection is usable now.
    @discardableResult
    func reconnect() -> Bool {
        guard !isClosed else { return false }
        PQreset(handle)
        prepared.removeAll()
        transactionDepth = 0
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Checks that the server still answers (`SELECT 1`).
    func ping() -> Bool {
        guard isIdle else { return false }
        do {
            _ = try check(PQexec(handle, "SELECT 1"), sql: "SELECT 1")
            return true
        } catch {
            return false
        }
    }

    // MARK: - Notifications (LISTEN)

    /// Reads whatever the server has sent, without blocking, and returns the notifications
    /// among it in order (channel and payload). Call it when `socket` is readable.
    /// - Throws: `PostgresError` (08006) when the connection is lost.
    func receiveNotifications() throws(PostgresError) -> [(channel: String, payload: String)] {
        guard !isClosed, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(sqlState: "08006", message: "lost the connection: \(Self.message(handle))")
        }
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            let channel = String(cString: notification.pointee.relname)
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            PQfreemem(notification)
            received.append((channel, payload))
        }
        return received
    }

    // MARK: - libpq results and errors

    private func checkOpen(_ sql: String) throws(PostgresError) {
        if isClosed { throw PostgresError(sqlState: "08003", message: "the connection is closed", sql: sql) }
    }

    /// Takes ownership of `result` and returns it, or frees it and throws the error it carries.
    private func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(sqlState: PQstatus(handle) == CONNECTION_OK ? nil : "08006", message: Self.message(handle), sql: sql)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            lastUsed = .now
            return PostgresResult(handle: result)
        default:
            // Every field is copied out before the result is freed.
            defer { PQclear(result) }
            func field(_ code: Int32) -> String? {
                PQresultErrorField(result, code).map { String(cString: $0) }
            }
            let reported = (field(notes_pq_diag_message_primary()) ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var state = field(notes_pq_diag_sqlstate())
            if state == nil && PQstatus(handle) != CONNECTION_OK { state = "08006" }  // lost before the server answered
            throw PostgresError(sqlState: state, message: reported.isEmpty ? Self.message(handle) : reported,
                                detail: field(notes_pq_diag_message_detail()),
                                constraint: field(notes_pq_diag_constraint_name()), sql: sql)
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown error" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "unknown error" : message
    }

    /// Calls `body` with a NULL-terminated array of C strings that live for the call.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
    }
}

/// One bound value in libpq's terms: a C buffer it reads, its length and format. Text, numbers
/// go as text (the server parses them into the column's type); bytes as binary (`bytea`).
private struct Parameter {
    let pointer: UnsafeMutablePointer<CChar>?
    let length: Int32
    let format: Int32
    /// The value's type, for a statement whose context leaves a parameter's type open: `int8`,
    /// `float8`, `text`, `bytea`, or 0 (unknown) for NULL.
    let type: Oid

    init(_ value: SQLValue, sql: String) throws(PostgresError) {
        switch value {
        case .null:
            pointer = nil
            length = 0
            format = 0
            type = 0
        case .integer(let int):
            (pointer, length) = Self.copy(Array(String(int).utf8))
            format = 0
            type = 20
        case .real(let double):
            (pointer, length) = Self.copy(Array("\(double)".utf8))
            format = 0
            type = 701
        case .text(let text):
            // PostgreSQL's text cannot hold U+0000: stored through a reversible mapping.
            (pointer, length) = Self.copy(Array(PostgresTextEscape.escape(text).utf8))
            format = 0
            type = 25
        case .blob(let bytes):
            (pointer, length) = Self.copy(bytes)
            format = 1
            type = 17
        }
    }

    /// A malloc'd copy of `bytes` with a NUL after them (text parameters are C strings).
    private static func copy(_ bytes: [UInt8]) -> (UnsafeMutablePointer<CChar>?, Int32) {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
        }
        buffer[bytes.count] = 0
        return (buffer, Int32(bytes.count))
    }

    func release() {
        pointer?.deallocate()
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
