import Foundation
import NotesCommandLine
import NotesCore

/// `notes ls`: every note on the server, for scripts.
struct ListCommand: Command {
    static let name = "ls"
    static let summary = "List the notes on the server"
    static let help = """
        Usage: notes ls [--long] [--json] [--server URL] [--username NAME]

        Lists every live note on the server by path, one per line, reading all pages.
        Control characters in paths are shown as \\u{1b} and the like; --json keeps them exact.

        Options:
          -l, --long       Also show revision, size in bytes and last change (UTC); on a
                           terminal with a header and aligned columns, elsewhere tab-separated
                           without a header
          --json           Print {"notes": [...]} with each note's metadata
        \(CommandSupport.serverHelp)
        """

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var notes: [NoteResource]
    }

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        let json = arguments.flag("--json")
        let long = arguments.flag("--long", short: "-l")
        try arguments.finish()
        let client = try CommandSupport.client(account, terminal)
        let notes = try await client.allNotes()
        if json {
            try CommandSupport.printJSON(Output(notes: notes), terminal)
            return .success
        }
        // Server text with control characters made visible: one line per note whatever the
        // server sends, and nothing that steers the terminal (`--json` keeps the exact strings).
        guard long else {
            terminal.write(notes.map { Terminal.printable($0.path) + "\n" }.joined())
            return .success
        }
        // A header only on a terminal: scripts reading `ls -l` get the tab-separated lines as before.
        var table = TextTable(header: ["REV", "SIZE", "UPDATED", "PATH"])
        for note in notes {
            table.append([String(note.rev), String(note.size), Terminal.printable(note.updatedAt), Terminal.printable(note.path)])
        }
        let lines = table.render(forTerminal: terminal.stdoutIsTTY)
        terminal.write(lines)
        return .success
    }
}
