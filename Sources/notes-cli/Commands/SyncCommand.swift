import Foundation
import NotesCommandLine
import NotesCore

/// `notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]`: two-way sync of a bound folder.
struct SyncCommand: Command {
    static let name = "sync"
    static let summary = "Two-way sync a bound folder with its server"
    static let help = """
        Usage: notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]

        Syncs the notes folder containing DIR (default: the current folder; found like git finds
        its repository) with its server: new, edited, renamed and deleted notes go both ways.
        Concurrent edits of one note are merged by lines; when they overlap, the server's version
        stays at the path and yours is kept beside it as NAME.conflict-DEVICE-TIME.md.
        Only *.md files sync; dot-files, .notes/, symbolic links and paths matched by
        .notesignore (gitignore syntax) never do. When the server asks for a full resync, no
        local file is deleted: what the server does not have is kept and uploaded.
        `notes status` shows beforehand exactly what a sync will do; `notes conflicts` lists
        the conflict copies and `notes resolve` settles them.

        Options:
          --dry-run            Show what would happen; change nothing (as `notes status`)
          --json               Print the report as JSON (the same shape as `notes status --json`)
          --allow-mass-delete  Allow deleting all notes, or over half when more than 20 would go

        Exit codes: 0 synced, 3 synced but conflict copies were made, 1 failure,
        4 sign-in required, 5 server unreachable.
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        var options = SyncOptions()
        options.dryRun = arguments.flag("--dry-run")
        options.allowMassDelete = arguments.flag("--allow-mass-delete")
        let json = arguments.flag("--json")
        let directory = arguments.positional() ?? FileManager.default.currentDirectoryPath
        try arguments.finish()
        let folder = try SyncFolder.find(from: directory)
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
