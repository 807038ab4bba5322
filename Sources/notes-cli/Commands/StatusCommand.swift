import Foundation
import NotesCore

/// `notes status [DIR] [--json]`: what a sync would do, changing nothing.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "Show what a sync would do"
    static let help = """
        Usage: notes status [DIR] [--json]

        Compares the notes folder containing DIR (default: the current folder) with its index
        and asks the server for its changes, then says what `notes sync` would upload, download,
        rename, delete and merge. Nothing is written. Same as `notes sync --dry-run`.

        Options:
          --json   Print the summary as JSON
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        var options = SyncOptions()
        options.dryRun = true
        options.allowMassDelete = true  // status reports; the guard stops a real sync
        let json = arguments.flag("--json")
        let directory = arguments.positional() ?? FileManager.default.currentDirectoryPath
        try arguments.finish()
        let folder = try SyncFolder.find(from: directory)
        _ = try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
        return .success
    }
}
