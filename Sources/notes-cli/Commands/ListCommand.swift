import Foundation
import NotesCommandLine
import NotesCore

/// `notes ls`: every note on the server, for scripts.
struct ListCommand: Command {
    static let spec = CommandSpec(
        "ls", abstract: "List the notes and attachments on the server",
        discussion: """
            Lists every live note and attachment on the server by path, one per line, reading all
            pages. With --long, each line also says its revision, size in bytes, last change and
            kind (note or attachment, last, so scripts reading the first four columns keep working).
            Control characters in paths are shown as \\u{1b} and the like; --json keeps them exact.
            Inside a notes folder the folder's account and space are listed; elsewhere the personal
            space of the signed-in account, or --space NAME.
            """,
        options: [
            .flag("long", short: "l", help: """
                Also show revision, size in bytes, last change (UTC) and kind; on a terminal with a header \
                and aligned columns, elsewhere tab-separated without a header
                """),
            .flag("json", help: "Print {\"notes\": [...]} with each entry's metadata (kind, size, media type included)"),
        ] + CommandSupport.spaceAccountOptions)

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var notes: [NoteResource]
    }

    let account: CommandSupport.AccountOptions
    let json: Bool
    let long: Bool

    init(_ parsed: ParsedCommand) {
        account = CommandSupport.AccountOptions(parsed)
        json = parsed.flag("json")
        long = parsed.flag("long")
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let folder = try HistoryTarget.boundFolder(around: FileManager.default.currentDirectoryPath)
        let client = try await HistoryTarget.client(for: folder, account: account, terminal)
        let notes = try await client.allNotes()
        if json {
            try CommandSupport.printJSON(Output(notes: notes), terminal)
            return .success
        }
        // Server text with control characters made visible: one line per note whatever the
        // server sends, and nothing that steers the terminal (`--json` keeps the exact strings).
        guard long else {
            terminal.write(notes.map { terminal.shownName($0.path) + "\n" }.joined())
            return .success
        }
        // A header only on a terminal: scripts reading `ls -l` get the tab-separated lines as before.
        var table = TextTable(header: ["REV", "SIZE", "UPDATED", "PATH", "KIND"])
        for note in notes {
            table.append([String(note.rev), String(note.size), Terminal.printable(note.updatedAt), terminal.shownName(note.path),
                          note.kind.rawValue])
        }
        let lines = table.render(forTerminal: terminal.stdoutIsTTY)
        terminal.write(lines)
        return .success
    }
}
