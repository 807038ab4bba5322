import Foundation
import NotesCommandLine
import NotesCore

/// `notes conflicts [DIR] [--json]`: the conflict copies of a bound folder and why each was made.
struct ConflictsCommand: Command {
    static let spec = CommandSpec(
        "conflicts", abstract: "List conflict copies and why they were made",
        discussion: """
            Lists the conflict copies in the notes folder containing DIR (default: the current
            folder), each beside the note it belongs to, and why it was made:
              overlapping edit  both sides changed the same lines (the server's text stayed at the path)
              case clash        two names that differ only in case, which one account cannot hold
              unsyncable file   a file that cannot be a note was in the way of the server's note
              unsyncable name   a file whose name could not be synced was moved to this copy
            A copy made on another device and synced here says which device made it.
            Settle each with `notes resolve COPY --keep mine|theirs|both`. When sync cannot store
            the note's own name (a backslash, a control character, a direction override), the
            copy is offered a name that syncs instead: `notes resolve COPY --rename-to NAME`.
            """,
        options: [.flag("json", help: "Print the list as JSON")],
        positionals: [PositionalSpec("DIR", .directory, .optional)],
        epilogue: "Exit codes: 0 listed (even when there are none), 1 failure, 2 usage error.")

    let json: Bool
    let directory: String

    init(_ parsed: ParsedCommand) {
        json = parsed.flag("json")
        directory = parsed.positional("DIR") ?? FileManager.default.currentDirectoryPath
    }

    struct Listing: Codable {
        var conflicts: [ConflictCopy]
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let folder = try SyncFolder.find(fromNamed: directory)
        let index = try folder.openIndex()
        defer { try? index.close() }
        let copies = try ConflictCopies.list(in: folder, index: index)
        if json {
            try CommandSupport.printJSON(Listing(conflicts: copies), terminal)
            return .success
        }
        guard !copies.isEmpty else {
            terminal.print("No conflict copies.")
            return .success
        }
        var note: String?
        for copy in copies {
            if copy.path != note {
                note = copy.path
                terminal.print(terminal.shownName(copy.path) + (copy.noteExists ? "" : "  (no such note here now)"))
            }
            terminal.print("  \(terminal.shownName(copy.copy))  \(copy.why)")
            if let problem = copy.unsyncableNote {
                let rename = copy.renameTo.map { "`notes resolve \(terminal.shownName(copy.copy)) --rename-to \(terminal.shownName($0))`" }
                    ?? "`notes resolve \(terminal.shownName(copy.copy)) --rename-to NAME`"
                terminal.print("    sync cannot store that note's name (\(problem)): keep this text under a name that syncs, \(rename)")
            }
        }
        if copies.contains(where: { $0.unsyncableNote == nil }) {
            terminal.print("Settle one with `notes resolve COPY --keep mine|theirs|both`.")
        }
        return .success
    }
}
