import Foundation
import NotesCommandLine
import NotesCore

/// `notes trash`: deleted notes the server still keeps, and when each will be purged.
struct TrashCommand: Command {
    static let name = "trash"
    static let summary = "List deleted notes that can still be restored"
    static let help = """
        Usage: notes trash [--json] [--server URL]

        Lists the deleted notes the server still keeps, most recently deleted first: when each
        was deleted, when the server will purge it for good (its tombstone retention), its
        last size in bytes and its path. Bring one back with `notes restore PATH`.

        Options:
          --json           Print {"notes": [{"id", "path", "rev", "last_rev", "size",
                           "deleted_at", "purge_at"}]}
        \(CommandSupport.serverHelp)

        Exit codes: 0 listed, 4 sign-in required, 5 server unreachable.
        """

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var notes: [TrashEntry]
    }

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        let json = arguments.flag("--json")
        try arguments.finish()
        let folder = try HistoryTarget.boundFolder(around: FileManager.default.currentDirectoryPath)
        let client = try await HistoryTarget.client(for: folder, account: account, terminal)
        let entries = try await client.trash()
        if json {
            try CommandSupport.printJSON(Output(notes: entries), terminal)
            return .success
        }
        if entries.isEmpty {
            terminal.printError("notes trash: no deleted notes are kept")
            return .success
        }
        var lines = terminal.stdoutIsTTY ? "DELETED\tPURGED AFTER\tSIZE\tPATH\n" : ""
        for entry in entries {
            lines += "\(HistoryTarget.shortTime(entry.deletedAt))\t\(HistoryTarget.shortTime(entry.purgeAt))\t\(entry.size)\t\(entry.path)\n"
        }
        terminal.write(lines)
        return .success
    }
}
