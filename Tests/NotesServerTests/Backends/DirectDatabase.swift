import NotesCore
@testable import NotesServer

/// A connection of the test's own to a live server's database, on whichever backend the server
/// runs: for what only the tables show (purged tokens, kept renderings, orphaned rows) and for
/// setting up what an older server left behind (a former password hash, a path now refused).
///
/// Statements go through the stores' `SQLConnection`, so one written with `?` placeholders and
/// SQL both databases understand runs unchanged on the SQLite and the PostgreSQL pass.
final class DirectDatabase {
    /// The connection; `close()` ends it.
    let db: any SQLConnection
    private let end: () -> Void

    /// Opens `location`, a `--db` value (`TestServer.databaseLocation`).
    init(_ location: String) throws {
        switch try DatabaseLocation(location) {
        case .sqlite(let path):
            let database = try Database(path: path)
            db = database
            end = { try? database.close() }
        case .postgres(let url):
            let connection = try PostgresConnection(url: url)
            db = connection
            end = { connection.close() }
        }
    }

    func close() { end() }
}
