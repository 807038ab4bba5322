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

    /// What went wrong, in the terms a caller decides on: the storage itself (full, read-only,
    /// gone) is the operator's problem and passes; anything else is a bug or bad data.
    public enum Kind: Sendable, Equatable {
        /// The disk, or the database's size limit (`PRAGMA max_page_count`), has no room left.
        case full
        /// The database cannot be written: a read-only file or mount, or the file was deleted
        /// or replaced while open (writes would go to a file nobody will ever open again).
        case readOnly
        /// The file cannot be reached: I/O errors, a vanished file or folder, WAL lock trouble.
        case unavailable
        /// Another connection held the lock past the busy timeout.
        case busy
        /// A UNIQUE, PRIMARY KEY, CHECK or foreign key constraint refused the write.
        case constraint
        /// Anything else: a bug, bad SQL or a damaged database.
        case other
    }

    /// The kind of failure, from SQLite's primary result code.
    public var kind: Kind {
        switch code & 0xFF {
        case 13: .full  // SQLITE_FULL
        case 8: .readOnly  // SQLITE_READONLY (and its extended codes, such as READONLY_DBMOVED)
        case 10, 14, 15: .unavailable  // SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PROTOCOL
        case 5, 6: .busy  // SQLITE_BUSY, SQLITE_LOCKED
        case 19: .constraint  // SQLITE_CONSTRAINT
        default: .other
        }
    }

    /// Whether the storage under the database failed (full, read-only or unreachable), as
    /// opposed to the request or the program: the server answers 507/503, not 500.
    public var isStorageFailure: Bool { [.full, .readOnly, .unavailable].contains(kind) }

    /// Whether a UNIQUE, PRIMARY KEY or other constraint rejected the write.
    public var isConstraintViolation: Bool { kind == .constraint }
    /// Whether the database stayed locked past the busy timeout.
    public var isBusy: Bool { kind == .busy }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in `\(sql)`)" }
        return "SQLite error \(code): \(message)"
    }
}
