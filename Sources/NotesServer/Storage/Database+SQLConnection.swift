import NotesCore

/// SQLite's statement is the row the stores read while it points at one.
extension Statement: SQLRow {}

/// SQLite's connection as the stores' `SQLConnection`: its own methods already have the shapes.
extension Database: SQLConnection {
    var dialect: SQLDialect { .sqlite }

    func each(_ sql: String, _ values: [any SQLBindable], _ body: (Statement) throws -> Bool) throws {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {
            guard try body(statement) else { return }
        }
    }
}
