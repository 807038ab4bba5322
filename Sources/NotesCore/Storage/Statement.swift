import CSQLite

/// A prepared statement owned by one `Database`; parameters are always bound, never interpolated.
///
/// Not thread-safe: it lives and dies with the connection that prepared it.
public final class Statement {
    private let handle: OpaquePointer
    private unowned let database: Database
    /// The SQL text, with `?` placeholders (safe to show in errors: it holds no values).
    public let sql: String

    init(database: Database, sql: String) throws(DatabaseError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to its parameters in order.
    public func bind(_ values: [any SQLBindable]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw DatabaseError(code: SQLITE_RANGE, message: "expected \(expected) parameters, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.sqlValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
            case .real(let double): code = sqlite3_bind_double(handle, index, double)
            case .text(var text):
                // Bind by byte count, not NUL-terminated: note content may contain U+0000.
                code = text.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        guard let base = chars.baseAddress else {
                            return sqlite3_bind_text(handle, index, "", 0, notes_sqlite_transient())
                        }
                        return sqlite3_bind_text(handle, index, base, Int32(chars.count), notes_sqlite_transient())
                    }
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob must still be a blob, not NULL: give SQLite a valid pointer.
                    sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), notes_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    public func step() throws(DatabaseError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so its read locks are released while it sits in the cache.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }

    public func int(_ column: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(column))) }

    public func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    public func bool(_ column: Int) -> Bool { sqlite3_column_int64(handle, Int32(column)) != 0 }

    /// The column as text; a NULL reads as the empty string (use `optionalString` to tell them apart).
    public func string(_ column: Int) -> String {
        guard let text = sqlite3_column_text(handle, Int32(column)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func optionalString(_ column: Int) -> String? {
        isNull(column) ? nil : string(column)
    }

    /// The column's bytes (a text's UTF-8 or a blob's) in SQLite's own buffer, valid only
    /// inside `body`: for a reader that keeps many values in one buffer of its own instead of a
    /// string or an array each (the client's index read of 10,000 rows). Empty for NULL.
    public func withBytes<R>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // The pointer first, then the count, as SQLite asks (asking for the count first may
        // convert the value and move it).
        let start = sqlite3_column_blob(handle, Int32(column))
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: start == nil ? 0 : count))
    }

    /// The column's bytes, copied out of SQLite's buffer.
    public func bytes(_ column: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard count > 0, let blob = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    public func value(_ column: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_FLOAT: .real(double(column))
        case SQLITE_TEXT: .text(string(column))
        case SQLITE_BLOB: .blob(bytes(column))
        default: .null
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
