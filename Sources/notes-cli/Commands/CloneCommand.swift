import Foundation
import NotesCore

/// `notes clone URL DIR`: binds a new folder to a server and syncs every note into it.
struct CloneCommand: Command {
    static let name = "clone"
    static let summary = "Bind a new folder to a server and download every note"
    static let help = """
        Usage: notes clone URL DIR [--username NAME] [--device NAME] [--json]

        Creates DIR (it must be missing or empty), binds it to the server at URL and to the
        account signed in there (--username, else the default account), and syncs every note of
        that account into it. Sign in first with `notes login --server URL` (or set NOTES_TOKEN).

        Options:
          --username NAME The account to clone, of those signed in (default: the last signed in)
          --device NAME   The name used in conflict copies made here (default: this host's name)
          --json          Print the sync summary as JSON
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let device = try arguments.option("--device")
        let username = try arguments.option("--username", short: "-u")
        let json = arguments.flag("--json")
        let rawServer = try arguments.requiredPositional("the server URL")
        let directory = try arguments.requiredPositional("the folder to clone into")
        try arguments.finish()
        let server = try ServerURL(rawServer)
        let root = BindSupport.absolute(directory)
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: root), !entries.isEmpty {
            throw CLIError.usage("\(directory) is not empty; clone into a new folder, or use `notes init` there")
        }
        // Check the sign-in before creating anything, so a failed clone leaves no folder behind.
        let account = try await ClientFactory(environment: terminal.environment).accountForBinding(server: server, username: username)
        let folder = try SyncFolder.bind(root: root, server: server.string, account: account, device: device ?? BindSupport.hostName())
        return try await SyncRunner.run(folder, options: SyncOptions(), json: json, terminal: terminal)
    }
}
