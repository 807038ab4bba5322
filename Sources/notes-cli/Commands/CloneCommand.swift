import Foundation
import NotesCommandLine
import NotesCore

/// `notes clone URL [DIR]`: binds a new folder to a server and syncs every note into it.
struct CloneCommand: Command {
    static let spec = CommandSpec(
        "clone", abstract: "Bind a new folder to a server and download every note",
        discussion: """
            Creates DIR (it must be missing or empty), binds it to the server at URL and to the
            account signed in there (--username, else the default account), and syncs every note of
            that account into it. Sign in first with `notes login --server URL` (or set NOTES_TOKEN).

            Without DIR, the folder is named after the server's host in the current folder, as git
            names a clone after its repository: https://notes.example.com clones into
            ./notes.example.com, and a port other than the scheme's default is kept after a dash,
            so http://127.0.0.1:8080 clones into ./127.0.0.1-8080.
            """,
        options: [
            .value("username", short: "u", placeholder: "NAME", help: "The account to clone, of those signed in (default: the last signed in)"),
            .value("device", placeholder: "NAME", help: "The name used in conflict copies made here (default: this host's name)"),
            .flag("json", help: "Print the sync summary as JSON"),
            BindSupport.spaceOption,
        ],
        positionals: [PositionalSpec("URL", .url), PositionalSpec("DIR", .directory, .optional)])

    let device: String?
    let username: String?
    let json: Bool
    let rawServer: String
    let givenDirectory: String?
    let space: String?

    init(_ parsed: ParsedCommand) {
        space = parsed.value("space")
        device = parsed.value("device")
        username = parsed.value("username")
        json = parsed.flag("json")
        rawServer = parsed.argument("URL")
        givenDirectory = parsed.positional("DIR")
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let server = try ServerURL(rawServer)
        let directory = givenDirectory ?? Self.defaultDirectory(for: server)
        let root = BindSupport.absolute(directory)
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: root), !entries.isEmpty {
            let hint = givenDirectory == nil ? "name another folder: notes clone \(server) DIR" : "clone into a new folder"
            throw UsageError("\(directory) is not empty; \(hint), or use `notes init` there")
        }
        // Check the sign-in before creating anything, so a failed clone leaves no folder behind.
        let factory = try ClientFactory(environment: terminal.environment)
        let account = try await factory.accountForBinding(server: server, username: username)
        let shared = try await BindSupport.space(space, server: server, account: account, factory: factory)
        let folder = try SyncFolder.bind(root: root, server: server.string, account: account, device: device ?? BindSupport.hostName(),
                                         space: shared)
        return try await SyncRunner.run(folder, options: SyncOptions(), json: json, terminal: terminal)
    }

    /// The folder a clone of `server` goes to when none is named: its host, with a port other
    /// than the scheme's default after a dash (a colon is awkward in paths, and Windows and
    /// macOS Finder refuse it). Characters other than letters, digits, `.`, `_` and `-` (an
    /// IPv6 address's colons) become dashes, so the name is always one plain path segment.
    static func defaultDirectory(for server: ServerURL) -> String {
        let components = URLComponents(string: server.string)
        // Foundation keeps an IPv6 host's brackets; they are not part of the name.
        var name = (components?.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let port = components?.port { name += "-\(port)" }
        let plain = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "-" })
        let trimmed = plain.drop { $0 == "-" || $0 == "." }
        return trimmed.isEmpty ? "notes" : String(trimmed)
    }
}
