import Foundation
import NotesCommandLine
import NotesCore

/// `notes init [DIR] [--server URL]`: binds a folder to a server and an account without syncing
/// yet; `--rebind` moves a bound folder to another account.
struct InitCommand: Command {
    static let spec = CommandSpec(
        "init", abstract: "Bind a folder (new or with notes) to a server and account",
        discussion: """
            Binds DIR (default: the current folder; created if missing) to the server and to the
            account signed in there (--username, else the default account; NOTES_TOKEN's owner when
            it is set): DIR/.notes/ holds the binding, the sync index and the lock. Notes already in
            DIR are uploaded by the first `notes sync`. Sign in first with `notes login --server URL`.

            --rebind binds the folder around DIR to another account (or server): use it for a
            folder that sync refuses because it belongs to an account you no longer use. The sync
            index is forgotten, no file is touched, and the next `notes sync` uploads the files to
            the new account beside its own notes, deleting nothing.
            """,
        usage: ["[DIR] [--server URL] [--username NAME] [--device NAME]", "[DIR] --rebind [--server URL] [--username NAME]"],
        options: [
            .value("server", .url, placeholder: "URL", help: """
                The server to sync with (default: NOTES_SERVER, else the one server you are signed in to; \
                with several, name one. With --rebind: default, the folder's)
                """),
            .value("username", short: "u", placeholder: "NAME", help: "The account to bind to, of those signed in (default: the last signed in)"),
            .value("device", placeholder: "NAME", help: "The name used in conflict copies made here (default: this host's name)"),
            .flag("rebind", help: "Bind an already bound folder to another account"),
            BindSupport.spaceOption,
        ],
        positionals: [PositionalSpec("DIR", .directory, .optional)])

    let explicitServer: String?
    let username: String?
    let device: String?
    let rebind: Bool
    let directory: String
    let space: String?

    init(_ parsed: ParsedCommand) throws {
        space = parsed.value("space")
        explicitServer = parsed.value("server")
        username = parsed.value("username")
        device = parsed.value("device")
        rebind = parsed.flag("rebind")
        directory = parsed.positional("DIR") ?? FileManager.default.currentDirectoryPath
        if rebind, device != nil { throw UsageError("--device cannot change with --rebind") }
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let factory = try ClientFactory(environment: terminal.environment)
        if rebind {
            let folder = try SyncFolder.find(from: BindSupport.absolute(directory))
            // The folder's own server unless named: NOTES_SERVER is not a reason to move a folder.
            let server = try ServerURL(explicitServer ?? folder.config.server)
            let account = try await factory.accountForBinding(server: server, username: username)
            if folder.config.account?.userId == account.userId, folder.config.server == server.string {
                // Keeping the index spares the next sync from matching every file again.
                terminal.printError("\(folder.root) is already bound to \(account.username) on \(server); nothing to do.")
                return .success
            }
            let lock = try SyncLock(path: folder.lockPath)
            let rebound = try folder.rebinding(server: server.string, account: account)
            withExtendedLifetime(lock) {}
            terminal.printError("Bound \(rebound.root) to \(account.username) on \(server); no file was changed. "
                                + "Run `notes sync` to upload its notes to \(account.username)'s.")
            return .success
        }
        // --server, else NOTES_SERVER, else the one server signed in to (several: a usage error naming them).
        let server = try factory.server(explicitServer)
        let root = BindSupport.absolute(directory)
        if let existing = try? SyncFolder.find(from: root) {
            throw UsageError("\(root) is already inside the notes folder \(existing.root) (bound to \(existing.config.server)); "
                                 + "to bind it to another account, use --rebind")
        }
        let account = try await factory.accountForBinding(server: server, username: username)
        let shared = try await BindSupport.space(space, server: server, account: account, factory: factory)
        let folder = try SyncFolder.bind(root: root, server: server.string, account: account, device: device ?? BindSupport.hostName(),
                                         space: shared)
        let what = folder.config.spaceName.map { "the space \(Terminal.printable($0)) as \(account.username)" } ?? account.username
        terminal.printError("Bound \(folder.root) to \(what) on \(server); run `notes sync` to sync it.")
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

    /// `--space NAME` of `init` and `clone`.
    static let spaceOption = OptionSpec.value("space", placeholder: "NAME",
                                              help: "Bind to this shared space (NAME or OWNER/NAME; default: your personal space)")

    /// The space `name` names among `account`'s, or nil without a name (the personal space).
    static func space(_ name: String?, server: ServerURL, account: AccountName, factory: ClientFactory) async throws -> SpaceResource? {
        guard let name else { return nil }
        let client = try factory.client(server: server.string, username: factory.personalToken == nil ? account.username : nil)
        return try await SpaceCommand.resolve(name, with: client)
    }

    /// This machine's host name, for conflict-copy names.
    static func hostName() -> String {
        let host = ProcessInfo.processInfo.hostName
        return host.split(separator: ".").first.map(String.init) ?? "device"
    }
}
