import Foundation
import NotesCommandLine
import NotesCore

/// `notes log PATH`: the revisions of one note, following it across renames by its id.
struct LogCommand: Command {
    static let spec = CommandSpec(
        "log", abstract: "Show the history of a note",
        discussion: """
            Lists the revisions the server keeps of the note at PATH, newest first: revision,
            time (UTC), the account that wrote it (its username; in a shared space, the member),
            the device that made it, size in bytes, what changed (created, edited, renamed,
            deleted, restored) and the path it had then. The device is the name the
            session signed in with (`notes login --device-name`, default "notes on HOST"), or
            token:NAME for a change made with a personal token; "-" when the server did not
            record one (revisions older than that feature). The note is followed by its id, so
            revisions from before a rename show the old path. When no live note has PATH, the most
            recently deleted one that had it is shown (see `notes trash`).

            Inside a notes folder PATH is relative to the current directory; elsewhere it is the
            note's path on the server. See an old version with `notes cat PATH --rev N`, and bring
            it back with `notes restore PATH --rev N`.
            """,
        options: [.flag("json", help: "Print {\"id\", \"path\", \"deleted\", \"revisions\": [...]}")] + CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file)],
        epilogue: "Exit codes: 0 shown, 1 no such note, 4 sign-in required, 5 server unreachable.")

    let argument: NoteArgument
    let json: Bool

    init(_ parsed: ParsedCommand) {
        argument = NoteArgument(parsed)
        json = parsed.flag("json")
    }

    /// One line of the log.
    struct Entry: Codable, Sendable, Equatable {
        var rev: Int64
        var time: String
        /// The username of the account that wrote the revision; `nil` from servers without spaces.
        var author: String?
        /// The device that made the revision; `nil` when the server did not record one.
        var device: String?
        var size: Int
        var path: String
        var hash: String
        /// created, edited, renamed, renamed+edited, deleted or restored.
        var change: String
        var deleted: Bool
        /// The path before this revision, when it renamed the note.
        var renamedFrom: String?
    }

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var id: NoteID
        var path: String
        var deleted: Bool
        var revisions: [Entry]
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let target = try await argument.open(terminal)
        let candidates = try await target.candidates()
        guard let note = candidates.first else { throw target.nothingHere }
        let entries = Self.classify(try await target.client.revisions(of: note.id))
        if json {
            try CommandSupport.printJSON(Output(id: note.id, path: target.path.value, deleted: note.isDeleted, revisions: entries), terminal)
            return .success
        }
        if candidates.count > 1 {
            let others = candidates.count - 1
            terminal.printError("notes log: \(others) other deleted note\(others == 1 ? "" : "s") also had \(target.path.value) (see `notes trash`)")
        }
        // The one table style: a header and aligned columns on a terminal, tab-separated lines elsewhere.
        var table = TextTable(header: ["REV", "TIME", "AUTHOR", "DEVICE", "SIZE", "CHANGE", "PATH"])
        for entry in entries {
            let renamed = entry.renamedFrom.map { "  (was \(Terminal.printable($0)))" } ?? ""
            table.append([String(entry.rev), HistoryTarget.shortTime(entry.time), Terminal.printable(entry.author ?? "-"),
                          Terminal.printable(entry.device ?? "-"),
                          String(entry.size), entry.change, terminal.shownName(entry.path) + renamed])
        }
        let lines = table.render(forTerminal: terminal.stdoutIsTTY)
        terminal.write(lines)
        return .success
    }

    /// Turns revisions (newest first) into log entries, each compared with the one before it.
    /// The oldest kept revision counts as the creation (a server with `--revision-ttl` may have
    /// pruned older ones).
    static func classify(_ revisions: [RevisionResource]) -> [Entry] {
        var entries: [Entry] = []
        for (index, revision) in revisions.enumerated() {
            let older = index + 1 < revisions.count ? revisions[index + 1] : nil
            let renamedFrom = older.flatMap { $0.path != revision.path ? $0.path : nil }
            let change: String
            if revision.deleted {
                change = "deleted"
            } else if let older {
                if older.deleted {
                    change = "restored"
                } else if renamedFrom != nil {
                    change = older.hash == revision.hash ? "renamed" : "renamed+edited"
                } else {
                    change = "edited"
                }
            } else {
                change = "created"
            }
            entries.append(Entry(rev: revision.rev, time: revision.createdAt, author: revision.author, device: revision.device, size: revision.size, path: revision.path,
                                 hash: revision.hash, change: change, deleted: revision.deleted,
                                 renamedFrom: revision.deleted ? nil : renamedFrom))
        }
        return entries
    }
}
