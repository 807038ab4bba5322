import Foundation
import NotesCommandLine
import NotesCore

/// `notes token create|list|revoke`: personal access tokens for scripts and CI (`NOTES_TOKEN`).
struct TokenCommand: Command {
    static let name = "token"
    static let summary = "Create, list and revoke personal access tokens"
    static let help = """
        Usage: notes token create NAME --scope read|write [--expires-in SECONDS] [--json]
               notes token list [--json]
               notes token revoke ID

        Personal access tokens let scripts and CI use the server without your password: set
        NOTES_TOKEN to the token and NOTES_SERVER to the server.

        create   Prints the new token's secret on stdout. It is shown this once only; the
                 server keeps only a hash of it. With --json, prints the whole token record.
        list     Shows id, name, scope, creation, expiry and last use (never the secret):
                 on a terminal with a header and aligned columns, elsewhere one
                 tab-separated line per token without a header (or --json).
        revoke   Revokes the token with that id at once.

        Options:
          --scope read|write     What the token may do (required for create)
          --expires-in SECONDS   Lifetime (default: until revoked)
          --json                 Machine-readable output
        \(CommandSupport.serverHelp)
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        let json = arguments.flag("--json")
        guard let action = arguments.positional() else { throw CLIError.usage("missing create, list or revoke") }
        switch action {
        case "create":
            let name = try arguments.requiredPositional("NAME")
            guard let scopeText = try arguments.option("--scope") else { throw CLIError.usage("create needs --scope read or --scope write") }
            guard let scope = TokenScope(rawValue: scopeText) else { throw CLIError.usage("--scope is read or write, not '\(scopeText)'") }
            let expiresIn = try arguments.intOption("--expires-in")
            if let expiresIn, expiresIn <= 0 { throw CLIError.usage("--expires-in must be a positive number of seconds") }
            try arguments.finish()
            let client = try CommandSupport.client(account, terminal)
            let token = try await client.createPersonalToken(CreateTokenRequest(name: name, scope: scope, expiresIn: expiresIn))
            guard let secret = token.token else {
                throw CLIError.failure("the server created token \(token.id) but did not return its secret; revoke it and try again")
            }
            if json {
                try CommandSupport.printJSON(token, terminal)
            } else {
                // The secret alone on stdout, so `TOKEN=$(notes token create ...)` just works.
                terminal.print(secret)
                terminal.printError("Created token \(token.id) (\(token.name), \(token.scope.rawValue)). This is the only time its secret is shown.")
            }
        case "list":
            try arguments.finish()
            let client = try CommandSupport.client(account, terminal)
            let list = try await client.personalTokens()
            if json {
                // The list never carries secrets, but make sure of it rather than trust the server.
                try CommandSupport.printJSON(PersonalTokenList(tokens: list.tokens.map { var t = $0; t.token = nil; return t }), terminal)
            } else {
                terminal.write(table(list.tokens).render(forTerminal: terminal.stdoutIsTTY))
            }
        case "revoke":
            let id = try arguments.requiredPositional("ID")
            try arguments.finish()
            let client = try CommandSupport.client(account, terminal)
            do {
                try await client.revokePersonalToken(id: id)
            } catch ClientError.status(let error) where error.status == 404 {
                throw CLIError.failure("no token with id \(id)")
            }
            terminal.printError("Revoked token \(id).")
        default:
            throw CLIError.usage("unknown token action '\(action)': use create, list or revoke")
        }
        return .success
    }

    /// The token list in the one table style (see `TextTable`); "-" for an absent time.
    private static func table(_ tokens: [PersonalTokenResource]) -> TextTable {
        var table = TextTable(header: ["ID", "NAME", "SCOPE", "CREATED", "EXPIRES", "LAST USED"])
        for token in tokens {
            table.append([token.id, token.name, token.scope.rawValue, token.createdAt, token.expiresAt ?? "-", token.lastUsedAt ?? "-"]
                .map { Terminal.printable($0) })
        }
        return table
    }
}
