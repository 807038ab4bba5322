import Foundation
import NotesCore

/// `notes whoami`: the signed-in user, which proves the stored session (or NOTES_TOKEN) works.
struct WhoamiCommand: Command {
    static let name = "whoami"
    static let summary = "Show who you are signed in as"
    static let help = """
        Usage: notes whoami [--server URL] [--json]

        Asks the server who the stored session (or NOTES_TOKEN) belongs to, renewing the
        session if needed. Exit code 4 means you need to run `notes login`.

        Options:
        \(CommandSupport.serverHelp)
          --json           Print {"server", "user"} as JSON
        """

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var server: String
        var user: UserResource
    }

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let serverOption = try arguments.option("--server")
        let json = arguments.flag("--json")
        try arguments.finish()
        let client = try CommandSupport.client(server: serverOption, terminal)
        let user = try await client.me()
        if json {
            try CommandSupport.printJSON(Output(server: client.server.string, user: user), terminal)
        } else {
            terminal.print("\(user.username) on \(client.server)")
        }
        return .success
    }
}
