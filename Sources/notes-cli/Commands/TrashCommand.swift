import Foundation
import NotesCommandLine
import NotesCore

/// `notes trash`: deleted notes the server still keeps, and when each will be purged.
struct TrashCommand: Command {
    static let spec = CommandSpec(
        "trash", abstract: "List deleted notes that can still be restored",
        discussion: """
            Lists the deleted notes the server still keeps, most recently deleted first: when each
            was deleted, when the server will purge it for good (its tombstone retention), its
            last size in bytes and its path. Bring one back with `notes restore PATH`.
            """,
        options: [
            .flag("json", help: "Print {\"notes\": [{\"id\", \"path\", \"rev\", \"last_rev\", \"size\", \"deleted_at\", \"purge_at\"}]}"),
        ] + CommandSupport.accountOptions,
        epilogue: "Exit codes: 0 listed, 4 sign-in required, 5 server unreachable.")

    let account: CommandSupport.AccountOptions
    let json: Bool

    init(_ parsed: ParsedCommand) {
        account = CommandSupport.AccountOptions(parsed)
        json = parsed.flag("json")
    }

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var notes: [TrashEntry]
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
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
