import Foundation
import NotesCore

/// `notes init [DIR] --server URL`: binds a folder to a server without syncing yet.
struct InitCommand: Command {
    static let name = "init"
    static let summary = "Bind a folder (new or with notes) to a server"
    static let help = """
        Usage: notes init [DIR] --server URL [--device NAME]

        Binds DIR (default: the current folder; created if missing) to the server: DIR/.notes/
        holds the binding, the sync index and the lock. Notes already in DIR are uploaded by the
        first `notes sync`. Sign in first with `notes login --server URL` (or set NOTES_TOKEN).

        Options:
          --server URL    The server to sync with
          --device NAME   The name used in conflict copies made here (default: this host's name)
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        guard let rawServer = try arguments.option("--server") ?? terminal.environment["NOTES_SERVER"] else {
            throw CLIError.usage("choose the server: --server URL")
        }
        let device = try arguments.option("--device")
        let directory = arguments.positional() ?? FileManager.default.currentDirectoryPath
        try arguments.finish()
        let server = try ServerURL(rawServer)
        let folder = try SyncFolder.bind(root: BindSupport.absolute(directory), server: server.string,
                                         device: device ?? BindSupport.hostName())
        terminal.printError("Bound \(folder.root) to \(server); run `notes sync` to sync it.")
        return .success
    }
}

/// Small helpers shared by `init` and `clone`.
enum BindSupport {
    /// `path` made absolute against the current folder, without resolving links.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/"))
            .standardizedFileURL.path
    }

    /// This machine's host name, for conflict-copy names.
    static func hostName() -> String {
        let host = ProcessInfo.processInfo.hostName
        return host.split(separator: ".").first.map(String.init) ?? "device"
    }
}
