import Foundation
import NotesCommandLine
import NotesCore

/// `notes whoami`: the signed-in user, which proves the stored session (or NOTES_TOKEN) works,
/// and, inside a bound folder, the account that folder belongs to.
struct WhoamiCommand: AccountReadingCommand {
    static let spec = CommandSpec(
        "whoami", abstract: "Show who you are signed in as",
        discussion: """
            Asks the server who the account in use belongs to (NOTES_TOKEN, else the session of
            --username, else of the default account), renewing the session if needed. Inside a
            bound folder, also shows the account the folder belongs to, which sync, status and the
            history commands use there. Exit code 4 means you need to run `notes login`.
            """,
        options: CommandSupport.accountOptions + [.flag("json", help: "Print {\"server\", \"user\", \"folder\"?} as JSON")])

    let account: CommandSupport.AccountOptions
    let json: Bool

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var server: String
        var user: UserResource
        /// The bound folder around the current directory, if any.
        var folder: Folder?
    }

    /// The folder part of the `--json` output.
    struct Folder: Codable, Sendable {
        var root: String
        var server: String
        /// Absent for a folder bound before accounts were recorded (adopted at its next sync).
        var userId: Int64?
        var username: String?
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let client = try CommandSupport.client(account, terminal)
        let user = try await client.me()
        // A broken config is for sync to report; here it only means no folder line.
        let folder = try? SyncFolder.find(from: FileManager.default.currentDirectoryPath)
        if json {
            let bound = folder.map { Folder(root: $0.root, server: $0.config.server, userId: $0.config.userId, username: $0.config.username) }
            try CommandSupport.printJSON(Output(server: client.server.string, user: user, folder: bound), terminal)
            return .success
        }
        terminal.print(Terminal.printable("\(user.username) on \(client.server)"))
        guard let folder else { return .success }
        if let bound = folder.config.account {
            let same = bound.userId == user.id && folder.config.server == client.server.string
            terminal.print(Terminal.printable("this folder (\(folder.root)) belongs to \(bound.username) on \(folder.config.server)"
                                              + (same ? "" : ", which sync and status use here")))
        } else {
            terminal.print("this folder (\(folder.root)) is bound to \(folder.config.server) but not yet to an account: "
                           + "its next sync adopts it for the signed-in account its notes belong to")
        }
        return .success
    }
}
