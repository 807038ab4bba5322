/// A failed PostgreSQL call: the server's SQLSTATE and message, or libpq's own message when the
/// failure happened before the server answered (connecting, a lost connection).
///
/// It never holds a parameter value or a password: `sql` is the statement text with its
/// placeholders, and connection failures name the URL through `PostgresURL.description`.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`, `40001`, ...), nil when the server sent none.
    let sqlState: String?
    let message: String
    /// The server's DETAIL line, when it sent one.
    let detail: String?
    /// The constraint a violation names (`notes_live_path`), when the server said.
    let constraint: String?
    /// The statement that failed, as written (placeholders, never values).
    let sql: String?

    init(sqlState: String? = nil, message: String, detail: String? = nil, constraint: String? = nil, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
        self.sql = sql
    }

    /// A serialization failure (`40001`) or deadlock (`40P01`): the transaction lost a race
    /// with another and may simply be run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// An integrity constraint refused the write (class 23: unique, foreign key, check, not null).
    var isConstraintViolation: Bool { sqlState?.hasPrefix("23") == true }

    /// A UNIQUE or PRIMARY KEY constraint refused the write.
    var isUniqueViolation: Bool { sqlState == "23505" }

    /// The connection to the server failed or was lost (class 08, or libpq's own failure, or the
    /// server shutting down or terminating this backend, class 57P): nothing the statement did.
    var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    /// The server's storage is full (`53100` disk full, `53200` out of memory, `53300` too many connections).
    var isStorageFailure: Bool { sqlState?.hasPrefix("53") == true }

    var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        if let sql { text += " (in `\(sql)`)" }
        return text
    }
}
