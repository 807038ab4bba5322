import Foundation
import NotesCore

/// `notes-server backup FILE`: a consistent copy of the live database (SQLite online backup).
enum BackupCommand {
    static let help = """
        Usage: notes-server backup FILE [--db PATH]

        Writes a consistent copy of the database to FILE while the server keeps running.
        FILE must not exist yet; it is made readable by its owner only (0600), as it holds
        password and token hashes. Restore by stopping the server and using FILE as --db.
        """

    static func run(_ arguments: inout Arguments) throws {
        let databasePath = try arguments.option("--db") ?? ServerConfiguration.defaultDatabasePath()
        let destination = try arguments.requiredPositional("the backup file")
        try arguments.finish()
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
