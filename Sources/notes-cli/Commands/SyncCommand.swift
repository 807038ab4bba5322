import Foundation
import NotesCore

/// `notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]`: two-way sync of a bound folder.
struct SyncCommand: Command {
    static let name = "sync"
    static let summary = "Two-way sync a bound folder with its server"
    static let help = """
        Usage: notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]
               notes sync --watch [DIR] [--quiet-period DURATION] [--json] [--allow-mass-delete]

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
          --watch              Sync, then stay and sync every change as it happens, either side,
                               until stopped (Ctrl-C, SIGTERM): one line per sync that did
                               something and per change of state (offline, back online); with
                               --json, JSON lines. The server unreachable is retried; only the
                               session ending (exit 4) or the mass-delete guard (exit 1) stop it
          --quiet-period D     With --watch: wait until the folder has been quiet this long
                               after a local change before syncing (default 1s; 500ms, 0.2)

        Exit codes: 0 synced (or a watch stopped by a signal), 3 synced but conflict copies were
        made, 1 failure, 4 sign-in required, 5 server unreachable.
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        var options = SyncOptions()
        options.dryRun = arguments.flag("--dry-run")
        options.allowMassDelete = arguments.flag("--allow-mass-delete")
        let json = arguments.flag("--json")
        let watch = arguments.flag("--watch"), quiet = try arguments.option("--quiet-period")
        let directory = arguments.positional() ?? FileManager.default.currentDirectoryPath
        try arguments.finish()
        let folder = try SyncFolder.find(from: directory)
        if watch || quiet != nil {
            guard watch, !options.dryRun else { throw CLIError.usage(watch ? "--watch cannot be a --dry-run" : "--quiet-period goes with --watch") }
            let quietPeriod = try quiet.map { try WatchSettings.duration($0, option: "--quiet-period") } ?? .seconds(1)
            let settings = WatchSettings(quietPeriod: quietPeriod, json: json, allowMassDelete: options.allowMassDelete, environment: terminal.environment)
            return try await WatchLoop.run(folder, settings: settings, terminal: terminal)
        }
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
