import Foundation
import NotesCommandLine
import NotesCore

/// `notes search`: full-text search on the server.
struct SearchCommand: Command {
    static let spec = CommandSpec(
        "search", abstract: "Search the notes on the server",
        discussion: """
            Full-text search; prints "PATH: snippet" per match, best first. Several words are
            searched together, as one query. Control characters in paths and snippets are shown
            as \\u{1b} and the like; --json keeps them exact.
            """,
        options: [
            .value("limit", .int, placeholder: "N", default: "20", help: "At most N matches"),
            .flag("json", help: "Print the server's {\"results\": [...]} as JSON"),
        ] + CommandSupport.accountOptions,
        positionals: [PositionalSpec("QUERY", .string, .repeating(required: true))])

    let account: CommandSupport.AccountOptions
    let json: Bool
    let limit: Int
    let words: [String]

    init(_ parsed: ParsedCommand) {
        account = CommandSupport.AccountOptions(parsed)
        json = parsed.flag("json")
        limit = parsed.int("limit") ?? 20
        words = parsed.positionals("QUERY")
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let query = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { throw CLIError.usage("missing QUERY") }
        guard limit > 0 else { throw CLIError.usage("--limit must be at least 1") }
        let client = try CommandSupport.client(account, terminal)
        let results = try await client.search(query, limit: limit)
        if json {
            try CommandSupport.printJSON(results, terminal)
            return .success
        }
        var lines = ""
        for hit in results.results {
            // One line per hit, so `grep` and `cut -d:` work on the output; snippets quote note
            // content, so control characters (escape sequences) are made visible.
            let snippet = hit.snippet.split(whereSeparator: \.isNewline).joined(separator: " ")
            lines += "\(Terminal.printable(hit.path)): \(Terminal.printable(snippet))\n"
        }
        terminal.write(lines)
        return .success
    }
}
