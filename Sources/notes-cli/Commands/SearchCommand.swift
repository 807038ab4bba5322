import Foundation
import NotesCommandLine
import NotesCore

/// `notes search`: full-text search on the server.
struct SearchCommand: Command {
    static let name = "search"
    static let summary = "Search the notes on the server"
    static let help = """
        Usage: notes search QUERY... [--limit N] [--json] [--server URL] [--username NAME]

        Full-text search; prints "PATH: snippet" per match, best first. Several words are
        searched together, as one query. Control characters in paths and snippets are shown
        as \\u{1b} and the like; --json keeps them exact.

        Options:
          --limit N        At most N matches (default 20)
          --json           Print the server's {"results": [...]} as JSON
        \(CommandSupport.serverHelp)
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        let json = arguments.flag("--json")
        let limit = try arguments.intOption("--limit") ?? 20
        var words: [String] = []
        while let word = arguments.positional() { words.append(word) }
        try arguments.finish()
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
