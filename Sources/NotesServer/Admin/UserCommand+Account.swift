import NotesCommandLine

/// The account a `user` subcommand acts on: the user NAME in the database `--db` names.
struct NamedAccount {
    let databasePath: String
    let name: String

    init(_ parsed: ParsedCommand) {
        databasePath = parsed.databasePath
        name = parsed.argument("NAME")
    }

    /// The accounts of the existing database `--db` names.
    func users() throws -> UserStore {
        UserStore(database: try openServerDatabase(databasePath), clock: ServerClock())
    }

    /// The user NAME, with the accounts of the database it was found in.
    /// - Throws: `UserStoreError.notFound` when there is no such user.
    func existing() throws -> (users: UserStore, user: UserRecord) {
        let users = try users()
        guard let user = try users.find(username: name) else { throw UserStoreError.notFound(name) }
        return (users, user)
    }
}

/// A `user` subcommand given only the account: its `init(account:)` (the memberwise one of a
/// struct whose only stored property is `account`) is all it needs to be parsed.
protocol NamedAccountCommand: AdminCommand {
    init(account: NamedAccount)
}

extension NamedAccountCommand {
    init(_ parsed: ParsedCommand) {
        self.init(account: NamedAccount(parsed))
    }
}
