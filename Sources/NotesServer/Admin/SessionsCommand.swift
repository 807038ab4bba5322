import Foundation
import NotesCore

/// `notes-server sessions list|revoke`: see who is signed in where, and sign them out.
///
/// Works on the database directly, so it also works while the server runs: the server checks
/// every token against the database, so a revoked session stops working at its next request.
enum SessionsCommand {
    static let help = """
        Usage: notes-server sessions <list|revoke> [options] [--db PATH]

          list [--user NAME] [--all] [--json]
                                       Active sessions: id, user, device, created, last used,
                                       state (--all adds revoked and expired ones not yet
                                       purged); a header on a terminal, tab-separated lines
                                       otherwise
          revoke ID...                 End these sessions: their refresh and access tokens stop
                                       working at once
          revoke --user NAME           End every session of NAME (personal tokens stay; use
                                       `user disable` or `user passwd` to end those too)
        """

    static func run(_ arguments: inout Arguments) throws {
        let databasePath = try arguments.option("--db") ?? ServerConfiguration.defaultDatabasePath()
        let username = try arguments.option("--user")
        let includeEnded = arguments.flag("--all")
        let json = arguments.flag("--json")
        let action = try arguments.requiredPositional("a sessions command (list, revoke)")
        guard ["list", "revoke"].contains(action) else { throw CommandSuggestion.unknown("sessions command", action, known: ["list", "revoke"]) }
        var ids: [Int64] = []
        while let text = arguments.positional() {
            guard let id = Int64(text), id > 0 else { throw UsageError("'\(text)' is not a session id (see `sessions list`)") }
            ids.append(id)
        }
        try arguments.finish()
        if json && action != "list" { throw UsageError("--json goes with `sessions list`") }
        let database = try openExistingDatabase(at: databasePath)
        let users = UserStore(database: database, clock: ServerClock())
        let sessions = SessionStore(database: database, clock: ServerClock(), lifetimes: TokenLifetimes())
        switch action {
        case "list":
            guard ids.isEmpty else { throw UsageError("list takes no session ids") }
            if let username, try users.find(username: username) == nil { throw UserStoreError.notFound(username) }
            let found = try sessions.list(username: username, includeEnded: includeEnded)
            try printList(found, json: json)
        case "revoke":
            if let username {
                guard ids.isEmpty else { throw UsageError("give session ids or --user, not both") }
                guard let user = try users.find(username: username) else { throw UserStoreError.notFound(username) }
                let count = try sessions.revokeAll(userID: user.id)
                printLine("Ended \(count) session\(count == 1 ? "" : "s") of \(username).")
            } else {
                guard !ids.isEmpty else { throw UsageError("revoke needs session ids or --user NAME") }
                for id in ids {
                    guard try sessions.revoke(sessionID: id) else { throw AdminError("there is no active session \(id)") }
                    printLine("Ended session \(id).")
                }
            }
        default:
            throw CommandSuggestion.unknown("sessions command", action, known: ["list", "revoke"])
        }
    }

    /// Sessions as a table (header on a terminal, tab-separated otherwise) or as a JSON array.
    private static func printList(_ sessions: [SessionRecord], json: Bool) throws {
        if json {
            let items = sessions.map {
                AdminSessionItem(id: $0.id, username: $0.username, device: $0.device,
                                 createdAt: WireTime.string(fromMilliseconds: $0.createdAt),
                                 lastUsedAt: WireTime.string(fromMilliseconds: $0.lastUsedAt), state: $0.state.rawValue)
            }
            printLine(String(decoding: try WireJSON.encoder().encode(items), as: UTF8.self))
            return
        }
        var table = TextTable(header: ["ID", "USER", "DEVICE", "CREATED", "LAST USED", "STATE"])
        for session in sessions {
            // A device label is client text: no tab or control character may break the columns.
            let device = String(String.UnicodeScalarView(session.device.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
            table.append([String(session.id), session.username, device.isEmpty ? "-" : device,
                          WireTime.string(fromMilliseconds: session.createdAt), WireTime.string(fromMilliseconds: session.lastUsedAt),
                          session.state.rawValue])
        }
        FileHandle.standardOutput.write(Data(table.render(forTerminal: isatty(STDOUT_FILENO) == 1).utf8))
    }
}

/// One session in `notes-server sessions list --json` (snake_case keys, like the API).
private struct AdminSessionItem: Encodable {
    let id: Int64
    let username: String
    let device: String
    let createdAt: String
    let lastUsedAt: String
    let state: String
}
