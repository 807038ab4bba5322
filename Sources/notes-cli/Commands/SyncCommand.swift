import Foundation
import NotesCommandLine
import NotesCore

/// `notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]`: two-way sync of a bound folder;
/// with `--watch`, continuously (`WatchLoop`).
struct SyncCommand: Command {
    static let spec = CommandSpec(
        "sync", abstract: "Two-way sync a bound folder with its server",
        discussion: """
            Syncs the notes folder containing DIR (default: the current folder; found like git finds
            its repository) with its server: new, edited, renamed and deleted notes go both ways.
            Concurrent edits of one note are merged by lines; when they overlap, the server's version
            stays at the path and yours is kept beside it as NAME.conflict-DEVICE-TIME.md.
            Every file syncs: *.md and *.markdown are notes; anything else is an attachment,
            moved by its content hash (never merged: both sides changed keeps yours beside the
            server's as NAME.conflict-DEVICE-TIME.EXT). Dot-files, .notes/, symbolic links,
            editors' temporary files and paths matched by .notesignore (gitignore syntax) never
            sync. A file over the server's size limit or the account's quota is skipped and
            named; the rest syncs and the exit code is 1. So is a file whose name sync cannot
            store (a backslash, a control character, a direction override): it is never renamed,
            and each sync names it until you rename it. Names with zero-width spaces, joiners
            and emoji sync byte-exact. When the server asks for a full resync, no
            local file is deleted: what the server does not have is kept and uploaded.
            `notes status` shows beforehand exactly what a sync will do; `notes conflicts` lists
            the conflict copies and `notes resolve` settles them.
            """,
        usage: [
            "[DIR] [--dry-run] [--json] [--allow-mass-delete]",
            "--watch [DIR] [--quiet-period DURATION] [--json] [--allow-mass-delete]",
        ],
        options: [
            .flag("dry-run", help: "Show what would happen; change nothing (as `notes status`)"),
            .flag("json", help: "Print the report as JSON (the same shape as `notes status --json`)"),
            .flag("allow-mass-delete", help: "Allow deleting all notes, or over half when more than 20 would go"),
            .flag("watch", help: """
                Sync, then stay and sync every change as it happens, either side, until stopped (Ctrl-C, \
                SIGTERM): one line per sync that did something and per change of state (offline, back \
                online); with --json, JSON lines. The server unreachable is retried; only the session \
                ending (exit 4) or the mass-delete guard (exit 1) stop it
                """),
            .value("quiet-period", placeholder: "DURATION", help: """
                With --watch: wait until the folder has been quiet this long after a local change before \
                syncing (default 1s; 500ms, 0.2)
                """),
        ],
        positionals: [PositionalSpec("DIR", .directory, .optional)],
        epilogue: """
            Exit codes: 0 synced (or a watch stopped by a signal), 3 synced but conflict copies were
            made, 1 failure (or a file skipped for a size limit, the quota or its name), 4 sign-in required,
            5 server unreachable.
            """)

    var options = SyncOptions()
    let json: Bool
    let directory: String
    /// Set for `--watch`: how long the folder stays quiet after a local change before a sync.
    let watchQuietPeriod: Duration?

    init(_ parsed: ParsedCommand) throws {
        options.dryRun = parsed.flag("dry-run")
        options.allowMassDelete = parsed.flag("allow-mass-delete")
        json = parsed.flag("json")
        directory = parsed.positional("DIR") ?? FileManager.default.currentDirectoryPath
        let quiet = parsed.value("quiet-period")
        guard parsed.flag("watch") else {
            if quiet != nil { throw UsageError("--quiet-period goes with --watch") }
            watchQuietPeriod = nil
            return
        }
        guard !options.dryRun else { throw UsageError("--watch cannot be a --dry-run") }
        // Its own parser: a watch's quiet period is often under a second (500ms, 0.2).
        watchQuietPeriod = try quiet.map { try WatchSettings.duration($0, option: "--quiet-period") } ?? .seconds(1)
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let folder = try SyncFolder.find(fromNamed: directory)
        if let watchQuietPeriod {
            let settings = WatchSettings(quietPeriod: watchQuietPeriod, json: json, allowMassDelete: options.allowMassDelete,
                                         environment: terminal.environment)
            return try await WatchLoop.run(folder, settings: settings, terminal: terminal)
        }
        return try await SyncRunner.run(folder, options: options, json: json, terminal: terminal)
    }
}
