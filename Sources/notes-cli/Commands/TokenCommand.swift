import Foundation
import NotesCommandLine
import NotesCore

/// `notes token create|list|revoke`: personal access tokens for scripts and CI (`NOTES_TOKEN`).
enum TokenCommand: DeclaredCommand {
    static let spec = CommandSpec(
        "token", abstract: "Create, list and revoke personal access tokens",
        discussion: """
            Personal access tokens let scripts and CI use the server without your password: set
            NOTES_TOKEN to the token and NOTES_SERVER to the server.
            """,
        options: CommandSupport.accountOptions.map { option in
            var option = option
            option.inherited = true
            return option
        })

    static var subcommands: [any DeclaredCommand.Type] { [Create.self, List.self, Revoke.self] }

    /// `token create NAME --scope read|write`.
    struct Create: Command {
        static let spec = CommandSpec(
            "create", abstract: "Create a token and print its secret",
            discussion: """
                Creates a token called NAME and prints its secret on stdout. It is shown this once only;
                the server keeps only a hash of it. With --json, prints the whole token record.
                """,
            usage: ["NAME --scope read|write [--expires-in DURATION] [--json] [--server URL] [--username NAME]"],
            options: [
                .value("scope", .choice(TokenScope.allCases.map(\.rawValue)), placeholder: "SCOPE", help: "What the token may do (required)"),
                .value("expires-in", .duration, placeholder: "DURATION",
                       help: "Lifetime: 45s, 90m, 1h, 30d, 2w or seconds (default: until revoked)"),
                .flag("json", help: "Print the whole token record as JSON"),
            ],
            positionals: [PositionalSpec("NAME", help: "A name to recognise the token by")])

        let account: CommandSupport.AccountOptions
        let name: String
        let scope: TokenScope
        let expiresIn: Int?
        let json: Bool

        init(_ parsed: ParsedCommand) throws {
            account = CommandSupport.AccountOptions(parsed)
            name = parsed.argument("NAME")
            let scope = parsed.value("scope").flatMap(TokenScope.init(rawValue:))
            expiresIn = parsed.duration("expires-in")
            json = parsed.flag("json")
            guard let scope else { throw UsageError("create needs --scope read or --scope write") }
            self.scope = scope
            if let expiresIn, expiresIn <= 0 { throw UsageError("--expires-in must be more than zero") }
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
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
            return .success
        }
    }

    /// `token list`.
    struct List: AccountReadingCommand {
        static let spec = CommandSpec(
            "list", abstract: "List your tokens (never their secrets)",
            discussion: """
                Shows id, name, scope, creation, expiry and last use (never the secret): on a terminal
                with a header and aligned columns, elsewhere one tab-separated line per token without a
                header (or --json).
                """,
            options: [.flag("json", help: "Print {\"tokens\": [...]} as JSON")])

        let account: CommandSupport.AccountOptions
        let json: Bool

        func run(_ terminal: Terminal) async throws -> ExitCode {
            let client = try CommandSupport.client(account, terminal)
            let list = try await client.personalTokens()
            if json {
                // The list never carries secrets, but make sure of it rather than trust the server.
                try CommandSupport.printJSON(PersonalTokenList(tokens: list.tokens.map { var t = $0; t.token = nil; return t }), terminal)
            } else {
                terminal.write(TokenCommand.table(list.tokens).render(forTerminal: terminal.stdoutIsTTY))
            }
            return .success
        }
    }

    /// `token revoke ID`.
    struct Revoke: Command {
        static let spec = CommandSpec(
            "revoke", abstract: "Revoke a token at once",
            discussion: "Revokes the token with that id (see `notes token list`) at once.",
            positionals: [PositionalSpec("ID", help: "The token's id from `notes token list`")])

        let account: CommandSupport.AccountOptions
        let id: String

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            id = parsed.argument("ID")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            let client = try CommandSupport.client(account, terminal)
            do {
                try await client.revokePersonalToken(id: id)
            } catch ClientError.status(let error) where error.status == 404 {
                throw CLIError.failure("no token with id \(id)")
            }
            terminal.printError("Revoked token \(id).")
            return .success
        }
    }

    /// The token list in the one table style (see `TextTable`); "-" for an absent time.
    static func table(_ tokens: [PersonalTokenResource]) -> TextTable {
        var table = TextTable(header: ["ID", "NAME", "SCOPE", "CREATED", "EXPIRES", "LAST USED"])
        for token in tokens {
            table.append([token.id, token.name, token.scope.rawValue, token.createdAt, token.expiresAt ?? "-", token.lastUsedAt ?? "-"]
                .map { Terminal.printable($0) })
        }
        return table
    }
}
