import Foundation
import NotesCommandLine
import NotesCore

/// `notes login`: signs in with a user name and password (or, with `--web`, through an identity
/// provider in the browser; with `--device`, by approving a code in the web app elsewhere) and
/// keeps the session for later runs.
struct LoginCommand: Command {
    static let spec = CommandSpec(
        "login", abstract: "Sign in to a server and remember the session",
        discussion: """
            Signs in and stores the session in $XDG_CONFIG_HOME/notes/credentials.json (default
            ~/.config/notes/, readable only by you). Later commands use it without asking again,
            renewing it silently.

            Several accounts can be signed in to one server: signing in as another user adds that
            account and makes it the default for commands outside a folder and for new bindings
            (`notes init`, `notes clone`); folders bound to another account keep using theirs.
            Signing in again as the same user replaces that account's session here and ends the
            replaced one on the server.

            On a terminal, asks for what is missing (the password without echo). Elsewhere, pass
            --username and the password on stdin with --password-stdin, as in
              printf '%s\\n' "$PASSWORD" | notes login --server URL --username NAME --password-stdin

            With --web, signs in through the server's identity provider (Google, Keycloak, a company's
            SSO) in a browser: this command listens on a loopback port, opens the browser (or prints
            the URL to open), and finishes when the browser comes back to it. The session is the same
            kind as a password sign-in.

            With --device, signs in a machine without a browser (RFC 8628): this command prints a
            short code and the server's /device page; open the page on any device where you can sign
            in to the web app, enter the code and approve. The command waits (polling the server)
            until you approve or deny, or the code expires after ten minutes; Ctrl-C stops it.
            """,
        options: [
            .value("server", .url, placeholder: "URL", help: "The server (default: NOTES_SERVER, else the one you signed in to)"),
            .value("username", short: "u", placeholder: "NAME", help: "Your user name"),
            .flag("password-stdin", help: "Read the password from stdin (its first line)"),
            .value("device-name", placeholder: "NAME", help: """
                The name of this session on the server, shown by `notes log` beside each change made here \
                (default: "notes on HOST")
                """),
            .flag("web", help: "Sign in through an identity provider in the browser instead of with a password"),
            .value("provider", placeholder: "ID", help: "With --web: the provider to use, when the server has several"),
            .flag("no-browser", help: "With --web: only print the URL to open, do not start a browser"),
            .flag("device", help: "Sign in by approving a short code in the web app on another device (for machines without a browser)"),
        ],
        positionals: [PositionalSpec("SERVER", .url, .optional, help: "The server, as with --server")])

    let serverOption: String?
    let givenUsername: String?
    let passwordFromStdin: Bool
    let deviceName: String?
    let web: Bool
    let provider: String?
    let openBrowser: Bool
    let device: Bool

    init(_ parsed: ParsedCommand) throws {
        let serverArgument = parsed.positional("SERVER")
        if serverArgument != nil, parsed.value("server") != nil { throw UsageError("give the server once: as SERVER or with --server") }
        serverOption = serverArgument ?? parsed.value("server")
        web = parsed.flag("web")
        provider = parsed.value("provider")
        openBrowser = !parsed.flag("no-browser")
        if !web, provider != nil || !openBrowser { throw UsageError("--provider and --no-browser go with --web") }
        device = parsed.flag("device")
        if device, web { throw UsageError("choose --web or --device, not both") }
        givenUsername = parsed.value("username")
        passwordFromStdin = parsed.flag("password-stdin")
        deviceName = parsed.value("device-name")
        if let deviceName, deviceName.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError("the device name is empty")
        }
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        var username = givenUsername
        let factory = try ClientFactory(environment: terminal.environment)
        guard let server = try factory.serverForSignIn(serverOption) else {
            throw UsageError("which server? pass --server URL (or set NOTES_SERVER)")
        }
        if web {
            guard givenUsername == nil, !passwordFromStdin else { throw UsageError("--web signs in at the provider: no --username or --password-stdin") }
            let session = try await WebSignIn.login(server: server, provider: provider, store: factory.store,
                                                    device: deviceName ?? SignIn.deviceName(), openBrowser: openBrowser,
                                                    show: { terminal.printError($0) })
            terminal.printError("Signed in to \(server) as \(session.username).")
            return .success
        }
        if device {
            guard givenUsername == nil, !passwordFromStdin else {
                throw UsageError("--device signs in by approval in the web app: no --username or --password-stdin")
            }
            let session = try await DeviceSignIn.login(server: server, store: factory.store, device: deviceName ?? SignIn.deviceName(),
                                                       show: { terminal.printError($0) })
            terminal.printError("Signed in to \(server) as \(session.username).")
            return .success
        }
        if username == nil, passwordFromStdin || !terminal.stdinIsTTY {
            throw UsageError("pass --username NAME when the password comes from stdin or stdin is not a terminal")
        }
        if username == nil {
            guard let typed = SecretPrompt.readVisible(prompt: "Username for \(server): ") else { throw CLIError.failure("no user name entered") }
            username = typed
        }
        guard let username, !username.isEmpty else { throw UsageError("the user name is empty") }

        let password: String
        if passwordFromStdin {
            // Its first line; an empty stdin is an empty password, refused below.
            password = SecretPrompt.readLineFromStdin() ?? ""
        } else if terminal.stdinIsTTY {
            guard let typed = SecretPrompt.readHidden(prompt: "Password for \(username) on \(server): ") else {
                throw CLIError.failure("no password entered")
            }
            password = typed
        } else {
            // Like `docker login`: never read a secret from a non-terminal stdin unasked.
            throw UsageError("stdin is not a terminal: pass the password with --password-stdin")
        }
        guard !password.isEmpty else { throw UsageError("the password is empty") }
        if server.isInsecure {
            terminal.printError("notes login: warning: \(server) is plain HTTP; your password and tokens travel unencrypted.")
        }

        let session = try await SignIn.login(server: server, username: username, password: password, store: factory.store,
                                             device: deviceName ?? SignIn.deviceName())
        let others = try factory.store.load().sessions(server: server.string).filter { $0.userId != session.userId }.map(\.username)
        if others.isEmpty {
            terminal.printError("Signed in to \(server) as \(session.username).")
        } else {
            terminal.printError("Signed in to \(server) as \(session.username), now the default account there "
                                + "(also signed in: \(others.joined(separator: ", ")); folders bound to them keep using them).")
        }
        if factory.personalToken != nil {
            terminal.printError("Note: NOTES_TOKEN is set, and it takes precedence over this session until you unset it.")
        }
        return .success
    }
}
