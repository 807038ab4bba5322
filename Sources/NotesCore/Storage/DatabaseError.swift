/// A failed SQLite call, with the result code, SQLite's message and the SQL that failed.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary or extended SQLite result code.
    public let code: Int32
    public let message: String
    /// The statement that failed, when there was one. It holds `?` placeholders, never values.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// Whether a UNIQUE, PRIMARY KEY or other constraint rejected the write.
    public var isConstraintViolation: Bool { code & 0xFF == 19 }  // SQLITE_CONSTRAINT
    /// Whether the database stayed locked past the busy timeout.
    public var isBusy: Bool { code & 0xFF == 5 || code & 0xFF == 6 }  // SQLITE_BUSY, SQLITE_LOCKED

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in `\(sql)`)" }
        return "SQLite error \(code): \(message)"
    }
}
