import Foundation
import NotesCommandLine
import NotesCore

/// Small pieces every remote command shares: the `--server`/`--username` options, `--json` output.
enum CommandSupport {
    /// `--server URL` and `--username NAME`, which every remote command takes.
    static let accountOptions: [OptionSpec] = [
        .value("server", .url, placeholder: "URL", help: "The server to use (default: NOTES_SERVER, else the one you signed in to)"),
        .value("username", short: "u", placeholder: "NAME", help: "The account to use, of those signed in (default: the last signed in)"),
    ]

    /// The account a remote command outside a folder uses: `--server` and `--username`.
    struct AccountOptions: Sendable {
        var server: String?
        var username: String?
        /// `--space NAME`, for the commands that declare it (`spaceAccountOptions`).
        var space: String?

        /// Reads `--server URL` and `--username NAME` (`-u NAME`), and `--space NAME` where the
        /// command takes it.
        init(_ parsed: ParsedCommand) {
            server = parsed.value("server")
            username = parsed.value("username")
            space = parsed.options.contains { $0.name == "space" } ? parsed.value("space") : nil
        }
    }

    /// Writes `value` to stdout as pretty-printed wire JSON (snake_case keys, sorted).
    static func printJSON<T: Encodable>(_ value: T, _ terminal: Terminal) throws {
        let encoder = WireJSON.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let data = try encoder.encode(value)
        terminal.print(String(decoding: data, as: UTF8.self))
    }

    /// The authenticated client for the command's `--server`, `--username` and the environment.
    static func client(_ account: AccountOptions, _ terminal: Terminal) throws -> APIClient {
        try ClientFactory(environment: terminal.environment).client(server: account.server, username: account.username)
    }

    /// The client of the account `folder` is bound to, for any command that reads or writes a
    /// bound folder (sync, status, history). Says so on stderr when it adopted a folder bound
    /// before accounts were recorded.
    /// - Throws: `AccountError` naming both accounts when only another account's credentials are at hand.
    static func client(forFolder folder: SyncFolder, _ terminal: Terminal,
                       tokenCheck: ClientFactory.PersonalTokenCheck = .now) async throws -> FolderClient {
        let bound = try await ClientFactory(environment: terminal.environment).client(forFolder: folder, tokenCheck: tokenCheck)
        if bound.adopted {
            terminal.printError("notes: \(folder.root) is now bound to \(bound.account.username) on \(folder.config.server) (recorded in .notes/config.json).")
        }
        return bound
    }
}
