import Foundation
import NotesCore

/// `notes-server sessions list|revoke`: see who is signed in where, and sign them out.
///
/// Works on the database directly, so it also works while the server runs: the server checks
/// every token against the database, so a revoked session stops working at its next request.
enum SessionsCommand {
    static let help = """
        Usage: notes-server sessions <list|revoke> [options] [--db PATH]

          list [--user NAME] [--all]   Active sessions: id, user, device, created, last used
                                       (--all adds revoked and expired ones not yet purged)
          revoke ID...                 End these sessions: their refresh and access tokens stop
                                       working at once
          revoke --user NAME           End every session of NAME (personal tokens stay; use
                                       `user disable` or `user passwd` to end those too)
        """

    static func run(_ arguments: inout Arguments) throws {
        let databasePath = try arguments.option("--db") ?? ServerConfiguration.defaultDatabasePath()
        let username = try arguments.option("--user")
        let includeEnded = arguments.flag("--all")
        let action = try arguments.requiredPositional("a sessions command (list, revoke)")
        var ids: [Int64] = []
        while let text = arguments.positional() {
            guard let id = Int64(text), id > 0 else { throw UsageError("'\(text)' is not a session id (see `sessions list`)") }
            ids.append(id)
        }
        try arguments.finish()
        let database = try openExistingDatabase(at: databasePath)
        let users = UserStore(database: database, clock: ServerClock())
        let sessions = SessionStore(database: database, clock: ServerClock(), lifetimes: TokenLifetimes())
        switch action {
        case "list":
            guard ids.isEmpty else { throw UsageError("list takes no session ids") }
            if let username, try users.find(username: username) == nil { throw UserStoreError.notFound(username) }
            let found = try sessions.list(username: username, includeEnded: includeEnded)
            printLine(["ID", "USER", "DEVICE", "CREATED", "LAST USED", "STATE"].joined(separator: "\t"))
            for session in found {
                printLine([String(session.id), session.username, session.device.isEmpty ? "-" : session.device,
                           WireTime.string(fromMilliseconds: session.createdAt), WireTime.string(fromMilliseconds: session.lastUsedAt),
                           session.state.rawValue].joined(separator: "\t"))
            }
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
            throw UsageError("unknown sessions command '\(action)'")
        }
    }
}
