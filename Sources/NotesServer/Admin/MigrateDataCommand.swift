import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server migrate-data --from PATH --to postgres://...`: moves a server from its SQLite
/// file (and the attachment directory beside it) to an empty PostgreSQL database, ids and all,
/// so that clients, tokens and links carry on as if nothing happened.
///
/// The copy is one PostgreSQL transaction: it either lands whole and verified, or leaves the
/// target as empty as it found it. Inside it: every table in order of their references, each
/// content's bytes into `PostgresBlobStore`'s pieces (checked against its hash on the way in),
/// the identity sequences moved past the copied ids, then the verification (every table's row
/// count on both sides, and every content read back from PostgreSQL and hashed again), and
/// only then the commit.
///
/// The source is read in one transaction holding SQLite's write lock and the content
/// directory's removal lock (as `backup` does), so a server still running on it can neither
/// change nor purge anything mid-copy; it should be stopped first all the same, as what it
/// accepts after the copy would not be in PostgreSQL.
struct MigrateDataCommand: AdminCommand {
    static let spec = CommandSpec(
        "migrate-data", abstract: "Copy a SQLite server's data into an empty PostgreSQL database",
        discussion: """
            Copies everything from the SQLite database PATH (and its attachment contents in PATH.content)
            into the PostgreSQL database URL, keeping every id: accounts, sessions and tokens (signed-in
            devices stay signed in), notes and their revisions, attachments, publications and provider
            identities. Sign-in state that lives minutes (provider round trips, login and device codes)
            and uploads still in progress are left behind: a sign-in or upload under way then simply
            starts again. The target is migrated to this program's schema first and must hold no data;
            the copy is verified (row counts of every table, the SHA-256 of every content) before it
            commits, and nothing is written if any of it fails. Stop the server before, and start it
            with --db URL after.
            """,
        usage: ["--from PATH --to URL"],
        options: [
            .value("from", .file, placeholder: "PATH",
                   help: "The SQLite database to copy, its PATH.content with it (default: --db, else the default database)"),
            .value("to", placeholder: "URL", help: "The PostgreSQL database to fill: postgres://USER@HOST/DB (must be empty)"),
        ])

    let source: String
    let target: PostgresURL

    init(_ parsed: ParsedCommand) throws {
        let source = parsed.value("from") ?? parsed.databasePath
        guard let target = parsed.value("to") else { throw UsageError("migrate-data needs --to URL, the PostgreSQL database to fill") }
        guard case .sqlite = try DatabaseLocation(source) else {
            throw UsageError("--from takes the SQLite database's path; the source cannot be PostgreSQL")
        }
        guard case .postgres(let url) = try DatabaseLocation(target) else {
            throw UsageError("--to takes a postgres:// URL (postgres://USER@HOST/DB, or ?host=/run/postgresql for a socket)")
        }
        self.source = source
        self.target = url
    }

    func run() throws {
        guard case .sqlite(let database) = try openServerDatabase(source) else {
            throw UsageError("--from takes the SQLite database's path; the source cannot be PostgreSQL")
        }
        defer { try? database.close() }
        let contents = FileBlobStore(databasePath: source)
        let connection = try PostgresConnection(url: target, extra: ["application_name": "notes-server migrate-data"])
        defer { connection.close() }
        try PostgresSchema.migrate(connection)

        let report = try contents.withRemovalsHeld {
            try database.withWriter { sqlite in
                // BEGIN IMMEDIATE: one snapshot of the source, and no writer can change it meanwhile.
                try sqlite.transaction {
                    let copy = DataMigration(sqlite: sqlite, contents: contents, postgres: connection, target: target)
                    try copy.checkVersions()
                    return try connection.transaction(isolation: .readCommitted) { try copy.run() }
                }
            }
        }
        for table in report.tables {
            printLine("\(table.name): \(table.rows) row\(table.rows == 1 ? "" : "s")")
        }
        printLine("Copied \(source) to \(target) and verified it: row counts match in every table, "
                  + "and \(report.contents) content\(report.contents == 1 ? "" : "s") (\(report.contentBytes) bytes) read back with the right SHA-256.")
        printLine("Left behind, as short-lived: \(DataMigration.skippedTables.map(\.name).joined(separator: ", ")).")
        printLine("Start the server with --db \(target) (and keep \(source) until you are sure).")
    }
}
