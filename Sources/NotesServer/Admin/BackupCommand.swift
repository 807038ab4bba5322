import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server backup FILE`: a consistent copy of the live database (SQLite online backup).
struct BackupCommand: AdminCommand {
    static let spec = CommandSpec(
        "backup", abstract: "Copy the live database to a file",
        discussion: """
            Writes a consistent copy of the database to FILE while the server keeps running.
            FILE must not exist yet; it is made readable by its owner only (0600), as it holds
            password and token hashes. Restore by stopping the server and using FILE as --db.
            """,
        positionals: [PositionalSpec("FILE", .file, help: "The backup to write (must not exist)")])

    let databasePath: String
    let destination: String

    init(_ parsed: ParsedCommand) {
        databasePath = parsed.databasePath
        destination = parsed.argument("FILE")
    }

    func run() throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw AdminError("\(destination) already exists; choose a new file")
        }
        let database = try openExistingDatabase(at: databasePath)
        try database.read { db in try db.backup(to: destination) }
        let check = try Database(path: destination).integrityCheck()
        guard check == "ok" else { throw AdminError("the backup failed its integrity check: \(check)") }
        printLine("Backed up \(databasePath) to \(destination).")
    }
}
