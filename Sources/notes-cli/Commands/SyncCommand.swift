import Foundation
import NotesCommandLine
import NotesCore

/// `notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]`: two-way sync of a bound folder.
struct SyncCommand: Command {
    static let spec = CommandSpec(
        "sync", abstract: "Two-way sync a bound folder with its server",
        discussion: """
            Syncs the notes folder containing DIR (default: the current folder; found like git finds
            its repository) with its server: new, edited, renamed and deleted notes go both ways.
            Concurrent edits of one note are merged by lines; when they overlap, the server's version
            stays at the path and yours is kept beside it as NAME.conflict-DEVICE-TIME.md.
            Only *.md files sync; dot-files, .notes/, symbolic links and paths matched by
            .notesignore (gitignore syntax) never do. When the server asks for a full resync, no
            local file is deleted: what the server does not have is kept and uploaded.
            `notes status` shows beforehand exactly what a sync will do; `notes conflicts` lists
            the conflict copies and `notes resolve` settles them.
            """,
        options: [
            .flag("dry-run", help: "Show what would happen; change nothing (as `notes status`)"),
            .flag("json", help: "Print the report as JSON (the same shape as `notes status --json`)"),
            .flag("allow-mass-delete", help: "Allow deleting all notes, or over half when more than 20 would go"),
        ],
        positionals: [PositionalSpec("DIR", .directory, .optional)],
        epilogue: """
            Exit codes: 0 synced, 3 synced but conflict copies were made, 1 failure,
            4 sign-in required, 5 server unreachable.
            """)

    var options = SyncOptions()
    let json: Bool
    let directory: String

    init(_ parsed: ParsedCommand) {
        options.dryRun = parsed.flag("dry-run")
        options.allowMassDelete = parsed.flag("allow-mass-delete")
        json = parsed.flag("json")
        directory = parsed.positional("DIR") ?? FileManager.default.currentDirectoryPath
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let folder = try SyncFolder.find(from: directory)
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
