import Foundation
import NotesCommandLine
import NotesCore

/// `notes trash`: deleted notes and attachments the server still keeps, and when each will be purged.
struct TrashCommand: AccountReadingCommand {
    static let spec = CommandSpec(
        "trash", abstract: "List deleted notes and attachments that can still be restored",
        discussion: """
            Lists the deleted notes and attachments the server still keeps, most recently deleted
            first: when each was deleted, when the server will purge it for good (its tombstone
            retention), its last size in bytes, its path and its kind (note or attachment, last, so
            scripts reading the first four columns keep working). On a terminal with a header and
            aligned columns, elsewhere tab-separated without a header. Bring one back with
            `notes restore PATH`.
            """,
        options: [
            .flag("json", help: """
                Print {"notes": [{"id", "path", "rev", "last_rev", "size", "deleted_at", "purge_at", "kind"}]}
                """),
        ] + CommandSupport.spaceAccountOptions,
        epilogue: "Exit codes: 0 listed, 4 sign-in required, 5 server unreachable.")

    let account: CommandSupport.AccountOptions
    let json: Bool

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
        // Server text with control characters made visible, as `notes ls` shows it.
        var table = TextTable(header: ["DELETED", "PURGED AFTER", "SIZE", "PATH", "KIND"])
        for entry in entries {
            table.append([HistoryTarget.shortTime(entry.deletedAt), HistoryTarget.shortTime(entry.purgeAt), String(entry.size),
                          terminal.shownName(entry.path), entry.kind.rawValue])
        }
        terminal.write(table.render(forTerminal: terminal.stdoutIsTTY))
        return .success
    }
}
