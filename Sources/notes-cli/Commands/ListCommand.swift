import Foundation
import NotesCore

/// `notes ls`: every note on the server, for scripts.
struct ListCommand: Command {
    static let name = "ls"
    static let summary = "List the notes on the server"
    static let help = """
        Usage: notes ls [--long] [--json] [--server URL] [--username NAME]

        Lists every live note on the server by path, one per line, reading all pages.

        Options:
          -l, --long       Also show revision, size in bytes and last change (UTC)
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
        var lines = ""
        for note in notes {
            if long {
                lines += "\(note.rev)\t\(note.size)\t\(note.updatedAt)\t\(note.path)\n"
            } else {
                lines += note.path + "\n"
            }
        }
        terminal.write(lines)
        return .success
    }
}
