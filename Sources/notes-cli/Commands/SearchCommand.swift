import Foundation
import NotesCommandLine
import NotesCore

/// `notes search`: full-text search on the server.
struct SearchCommand: Command {
    static let spec = CommandSpec(
        "search", abstract: "Search the notes on the server",
        discussion: """
            Full-text search over every space you can read, or only --space NAME, or, inside a notes
            folder, only the folder's space; prints "PATH: snippet" per match, best first in each
            space (a shared space's paths after OWNER/NAME:, your personal space's and a folder's
            alone). Several words are
            searched together, as one query. On a terminal the matched words are bold (not with
            NO_COLOR or TERM=dumb); piped, the snippet is plain text. A snippet is at most 300
            characters around the match, however long the note's lines. Control characters in
            paths and snippets are shown as \\u{1b} and the like; --json keeps them exact.
            """,
        options: [
            .value("limit", .int, placeholder: "N", default: "20", help: "At most N matches"),
            .flag("json", help: "Print the server's {\"results\": [...]} as JSON"),
            .value("space", placeholder: "NAME", help: """
                Outside a notes folder: search only this space (NAME or OWNER/NAME; default: every space you can read)
                """),
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
        guard !query.isEmpty else { throw UsageError("missing QUERY") }
        guard limit > 0 else { throw UsageError("--limit must be at least 1") }
        let results: SearchResults
        let folder = try HistoryTarget.boundFolder(around: FileManager.default.currentDirectoryPath)
        if let folder, account.server == nil, account.username == nil {
            try CommandSupport.refuseSpace(account, in: folder)
            results = try await CommandSupport.client(forFolder: folder, terminal).client.search(query, limit: limit)
        } else {
            results = try await Self.search(query, limit: limit, in: account.space, with: try CommandSupport.client(account, terminal))
        }
        if json {
            try CommandSupport.printJSON(results, terminal)
            return .success
        }
        let bold = terminal.stdoutIsTTY && terminal.environment["NO_COLOR"] == nil && terminal.environment["TERM"] != "dumb"
        var lines = ""
        for hit in results.results {
            lines += "\(terminal.shownName(hit.path)): \(Self.snippet(hit, bold: bold))\n"
        }
        terminal.write(lines)
        return .success
    }

    /// The hit's text on one line, so `grep` and `cut -d:` work on the output, and at most a few
    /// hundred characters around the match, whatever the server sent. Snippets quote
    /// note content, so control characters (escape sequences) are made visible before the
    /// highlights are drawn in bold (on a terminal) around the matched words.
    /// The matches of `query` in the space `name`, or in every live space the account can read
    /// (the personal one alone from a server without spaces), each space's best first, at most
    /// `limit` in all. A shared space's paths come after its `OWNER/NAME:`.
    static func search(_ query: String, limit: Int, in name: String?, with client: APIClient) async throws -> SearchResults {
        let spaces: [SpaceResource]
        if let name {
            spaces = [try await SpaceCommand.resolve(name, with: client)]
        } else {
            do {
                spaces = try await client.spaces().filter { $0.deletedAt == nil }
            } catch let error as ClientError where error.apiStatus?.status == 404 {
                return try await client.search(query, limit: limit)
            }
        }
        var hits: [SearchResults.Hit] = []
        for space in spaces where hits.count < limit {
            let found = try await client.inSpace(space.personal ? nil : space.id).search(query, limit: limit - hits.count).results
            hits += found.map { hit in
                var hit = hit
                if !space.personal { hit.path = space.qualifiedName + ":" + hit.path }
                return hit
            }
        }
        return SearchResults(results: hits)
    }

    static func snippet(_ hit: SearchResults.Hit, bold: Bool) -> String {
        let hit = hit.boundingSnippet()
        return SearchHighlight.pieces(hit.text, hit.highlights).map { piece in
            let text = Terminal.printable(piece.text.split(whereSeparator: \.isNewline).joined(separator: " "))
            return piece.highlighted && bold ? "\u{1B}[1m" + text + "\u{1B}[22m" : text
        }.joined()
    }
}
