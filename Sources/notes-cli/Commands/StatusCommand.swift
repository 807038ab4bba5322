import Foundation
import NotesCommandLine
import NotesCore

/// `notes status [DIR] [--json] [--allow-mass-delete]`: what the next sync would do, changing nothing.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "Show what a sync would do"
    static let help = """
        Usage: notes status [DIR] [--json] [--allow-mass-delete]

        The dry run of `notes sync` for the notes folder containing DIR (default: the current
        folder): lists what changed here since the last sync (new, modified, renamed, deleted),
        then what the next sync would upload, download, rename, delete and merge, and which
        conflict copies it would make and why (overlapping edit, case clash, unsyncable name).
        It reads the server's changes (and, to tell a merge from a conflict, the texts involved)
        but writes nothing, here or on the server. When the mass-delete guard would stop the
        sync, it says so with the guard's count. Same as `notes sync --dry-run`.

        Offline, it still lists the local changes and says the server's side is unknown.

        Options:
          --json               Print the report as JSON (the same shape as `notes sync --json`)
          --allow-mass-delete  Predict `notes sync --allow-mass-delete`

        Exit codes: 0 done (whatever the prediction), 1 failure, 4 sign-in required,
        5 server unreachable (the local changes were printed).
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        var options = SyncOptions()
        options.dryRun = true
        options.allowMassDelete = arguments.flag("--allow-mass-delete")
        let json = arguments.flag("--json")
        let directory = arguments.positional() ?? FileManager.default.currentDirectoryPath
        try arguments.finish()
        let folder = try SyncFolder.find(from: directory)
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
