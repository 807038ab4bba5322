import Foundation
import NotesCommandLine
import NotesCore

/// `notes status [DIR] [--json] [--allow-mass-delete]`: what the next sync would do, changing nothing.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        "status", abstract: "Show what a sync would do",
        discussion: """
            The dry run of `notes sync` for the notes folder containing DIR (default: the current
            folder): lists what changed here since the last sync (new, modified, renamed, deleted),
            then what the next sync would upload, download, rename, delete and merge, and which
            conflict copies it would make and why (overlapping edit, case clash), and which files it
            would leave out and why (too large, a name sync cannot store). It reads the server's changes (and, to tell a merge from a conflict, the texts involved)
            but writes nothing, here or on the server. When the mass-delete guard would stop the
            sync, it says so with the guard's count. Same as `notes sync --dry-run`.

            It takes no lock, so it runs beside `notes sync --watch` or another sync: it reads the
            sync index as one committed state, and predicts from that moment.

            Offline, it still lists the local changes and says the server's side is unknown.
            """,
        options: [
            .flag("json", help: "Print the report as JSON (the same shape as `notes sync --json`)"),
            .flag("allow-mass-delete", help: "Predict `notes sync --allow-mass-delete`"),
        ],
        positionals: [PositionalSpec("DIR", .directory, .optional)],
        epilogue: """
            Exit codes: 0 done (whatever the prediction), 1 failure, 4 sign-in required,
            5 server unreachable (the local changes were printed).
            """)

    var options = SyncOptions()
    let json: Bool
    let directory: String

    init(_ parsed: ParsedCommand) {
        options.dryRun = true
        options.allowMassDelete = parsed.flag("allow-mass-delete")
        json = parsed.flag("json")
        directory = parsed.positional("DIR") ?? FileManager.default.currentDirectoryPath
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let folder = try SyncFolder.find(fromNamed: directory)
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
