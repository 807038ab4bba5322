import NotesCore

/// One row of a query's answer, as the stores read it: by column index, in the order the
/// statement selects them. A SQLite `Statement` and a `PostgresRow` both are one.
protocol SQLRow {
    func isNull(_ column: Int) -> Bool
    func int64(_ column: Int) -> Int64
    func int(_ column: Int) -> Int
    func bool(_ column: Int) -> Bool
    /// The column as text; a NULL reads as the empty string.
    func string(_ column: Int) -> String
    func optionalString(_ column: Int) -> String?
    func bytes(_ column: Int) -> [UInt8]
}

/// A connection the stores run their statements on, whichever database is behind it: the
/// seam between the stores and the two backends (SQLite's `Database`, `PostgresConnection`).
///
/// Statements are written once, with `?` placeholders and SQL both databases understand
/// (`RETURNING` rather than `lastInsertRowID`, `0`/`1` integer flags, `max(a, b)` spelled
/// `CASE` or `GREATEST` per backend where they differ); values are always bound. A store
/// function generic over `some SQLConnection` runs unchanged on either.
///
/// `transaction` gives one-writer-at-a-time semantics on both: SQLite's `BEGIN IMMEDIATE`
/// queues writers; PostgreSQL runs `SERIALIZABLE` and runs the body again when it lost a race,
/// so a body must do nothing outside the database that cannot be repeated.
protocol SQLConnection: AnyObject {
    associatedtype Row: SQLRow

    /// Which database answers: for the few statements the two spell differently.
    var dialect: SQLDialect { get }

    /// Runs statements without values (schema changes, pragmas); nothing from outside in `sql`.
    func execute(_ sql: String) throws

    /// Runs a write with bound values; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: any SQLBindable...) throws -> Int

    /// Every row of a query, each mapped by `row` while it is current.
    func query<T>(_ sql: String, _ values: [any SQLBindable], row: (Row) throws -> T) throws -> [T]

    /// Visits the rows of a query in order while `body` returns true: SQLite steps its
    /// statement, so rows past the stop are never read.
    func each(_ sql: String, _ values: [any SQLBindable], _ body: (Row) throws -> Bool) throws

    /// The first row of a query, or `nil`.
    func first<T>(_ sql: String, _ values: [any SQLBindable], row: (Row) throws -> T) throws -> T?

    /// The first column of the first row as an integer, or `nil` when there is no row (or NULL).
    func scalarInt(_ sql: String, _ values: [any SQLBindable]) throws -> Int64?

    /// The first column of the first row as text, or `nil` when there is no row (or NULL).
    func scalarString(_ sql: String, _ values: [any SQLBindable]) throws -> String?

    /// Runs `body` in a transaction (nested: a savepoint); a thrown error rolls it back.
    @discardableResult
    func transaction<T>(_ body: () throws -> T) throws -> T
}

/// The two databases the stores run on, for the statements they spell differently.
enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

extension SQLConnection {
    /// `max(a, b)` of two values: SQLite's scalar `max`, PostgreSQL's `GREATEST`.
    func greatest(_ a: String, _ b: String) -> String {
        dialect == .sqlite ? "max(\(a), \(b))" : "GREATEST(\(a), \(b))"
    }

    /// Every row of a query without parameters.
    func query<T>(_ sql: String, row: (Row) throws -> T) throws -> [T] {
        try query(sql, [], row: row)
    }

    /// Every row of a query that `row` maps to a value; rows it maps to `nil` are skipped.
    func compactQuery<T>(_ sql: String, _ values: [any SQLBindable] = [], row: (Row) throws -> T?) throws -> [T] {
        var rows: [T] = []
        try each(sql, values) { current in
            if let value = try row(current) { rows.append(value) }
            return true
        }
        return rows
    }

    /// The first row of a query without parameters.
    func first<T>(_ sql: String, row: (Row) throws -> T) throws -> T? {
        try first(sql, [], row: row)
    }

    /// The first column of the first row of a query without parameters, as an integer.
    func scalarInt(_ sql: String) throws -> Int64? {
        try scalarInt(sql, [])
    }

    /// The first column of the first row of a query without parameters, as text.
    func scalarString(_ sql: String) throws -> String? {
        try scalarString(sql, [])
    }
}
