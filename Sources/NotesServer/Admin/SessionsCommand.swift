import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server sessions list|revoke`: see who is signed in where, and sign them out.
///
/// Works on the database directly, so it also works while the server runs: the server checks
/// every token against the database, so a revoked session stops working at its next request.
enum SessionsCommand: DeclaredCommand {
    static let spec = CommandSpec("sessions", abstract: "List signed-in sessions and end them")

    static var subcommands: [any DeclaredCommand.Type] { [List.self, Revoke.self] }

    /// `sessions list`: who is signed in, where.
    struct List: AdminCommand {
        static let spec = CommandSpec(
            "list", abstract: "List active sessions",
            discussion: """
                Lists the active sessions: id, user, device, created, last used, state (--all adds revoked
                and expired ones not yet purged); a header on a terminal, tab-separated lines otherwise.
                """,
            options: [
                .value("user", placeholder: "NAME", help: "Only the sessions of NAME"),
                .flag("all", help: "Also revoked and expired sessions not yet purged"),
                .flag("json", help: "Print a JSON array"),
            ])

        let databasePath: String
        let username: String?
        let includeEnded: Bool
        let json: Bool

        init(_ parsed: ParsedCommand) {
            databasePath = parsed.databasePath
            username = parsed.value("user")
            includeEnded = parsed.flag("all")
            json = parsed.flag("json")
        }

        func run() throws {
            let database = try openServerDatabase(databasePath)
            let users = UserStore(database: database, clock: ServerClock())
            let sessions = SessionStore(database: database, clock: ServerClock(), lifetimes: TokenLifetimes())
            if let username, try users.find(username: username) == nil { throw UserStoreError.notFound(username) }
            try SessionsCommand.printList(try sessions.list(username: username, includeEnded: includeEnded), json: json)
        }
    }

    /// `sessions revoke ID...|--user NAME`: sign sessions out.
    struct Revoke: AdminCommand {
        static let spec = CommandSpec(
            "revoke", abstract: "End sessions: by id, or every session of a user",
            discussion: """
                Ends the sessions with these ids (see `sessions list`), or with --user every session of NAME:
                their refresh and access tokens stop working at once. Personal tokens stay; use
                `user disable` or `user passwd` to end those too.
                """,
            usage: ["ID... [--db PATH]", "--user NAME [--db PATH]"],
            options: [.value("user", placeholder: "NAME", help: "End every session of NAME")],
            positionals: [PositionalSpec("ID", .string, .repeating(required: false), help: "A session id from `sessions list`")])

        let databasePath: String
        let username: String?
        let ids: [Int64]

        init(_ parsed: ParsedCommand) throws {
            databasePath = parsed.databasePath
            username = parsed.value("user")
            ids = try parsed.positionals("ID").map { text in
                guard let id = Int64(text), id > 0 else { throw UsageError("'\(text)' is not a session id (see `sessions list`)") }
                return id
            }
            if username != nil, !ids.isEmpty { throw UsageError("give session ids or --user, not both") }
            if username == nil, ids.isEmpty { throw UsageError("revoke needs session ids or --user NAME") }
        }

        func run() throws {
            let database = try openServerDatabase(databasePath)
            let users = UserStore(database: database, clock: ServerClock())
            let sessions = SessionStore(database: database, clock: ServerClock(), lifetimes: TokenLifetimes())
            if let username {
                guard let user = try users.find(username: username) else { throw UserStoreError.notFound(username) }
                let count = try sessions.revokeAll(userID: user.id)
                printLine("Ended \(count) session\(count == 1 ? "" : "s") of \(username).")
                return
            }
            for id in ids {
                guard try sessions.revoke(sessionID: id) else { throw AdminError("there is no active session \(id)") }
                printLine("Ended session \(id).")
            }
        }
    }

    /// Sessions as a table (header on a terminal, tab-separated otherwise) or as a JSON array.
    static func printList(_ sessions: [SessionRecord], json: Bool) throws {
        if json {
            let items = sessions.map {
                AdminSessionItem(id: $0.id, username: $0.username, device: $0.device,
                                 createdAt: WireTime.string(fromMilliseconds: $0.createdAt),
                                 lastUsedAt: WireTime.string(fromMilliseconds: $0.lastUsedAt), state: $0.state.rawValue)
            }
            try AdminListing.printJSON(items)
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
        AdminListing.print(table)
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
