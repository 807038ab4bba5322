import NotesCore

/// A PostgreSQL row reads like a SQLite row.
extension PostgresRow: SQLRow {}

/// A PostgreSQL connection runs the stores' statements (`?` placeholders become `$n`).
extension PostgresConnection: SQLConnection {
    var dialect: SQLDialect { .postgres }

    func each(_ sql: String, _ values: [any SQLBindable], _ body: (PostgresRow) throws -> Bool) throws {
        let result = try result(sql, values)
        for row in 0..<Int32(result.rowCount) {
            guard try body(PostgresRow(result: result, row: row)) else { return }
        }
    }
}
