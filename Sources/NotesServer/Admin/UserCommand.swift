import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server user add|list|passwd|rename|disable|enable|unlock|delete|link|unlink`: account administration on the host.
enum UserCommand: DeclaredCommand {
    static let spec = CommandSpec("user", abstract: "Add, list, change, disable, unlock or delete users")

    static var subcommands: [any DeclaredCommand.Type] { [Add.self, List.self, Passwd.self, Rename.self, Disable.self, Enable.self, Unlock.self, Delete.self, Link.self, Unlink.self] }

    static let nameArgument = PositionalSpec("NAME", help: "The user name (compared ignoring case)")
    static let passwordStdin = OptionSpec.flag("password-stdin", help: "Read the password from the first line of stdin")

    /// `user add NAME`: the only command besides `serve` that may create the database.
    struct Add: AdminCommand {
        static let spec = CommandSpec(
            "add", abstract: "Create a user",
            discussion: """
                Creates the user NAME; asks for the password (at least 8 characters) and then to repeat
                it (no echo), or reads one line with --password-stdin. NAME: letters of any script,
                digits, '.', '_', '-'; compared ignoring case, so `Zoë` and `zoë` are one account.
                Creates the database if there is none yet (the folders above a --db file only with
                --create-dirs; the default path's always).
                """,
            options: [passwordStdin, .createDatabaseFolders], positionals: [nameArgument])

        let databasePath: String
        let createsFolders: Bool
        let name: String
        let passwordFromStdin: Bool

        init(_ parsed: ParsedCommand) {
            databasePath = parsed.databasePath
            createsFolders = parsed.createsDatabaseFolders
            name = parsed.argument("NAME")
            passwordFromStdin = parsed.flag("password-stdin")
        }

        func run() throws {
            let users = UserStore(database: try openServerDatabase(databasePath, create: true, createsFolders: createsFolders),
                                  clock: ServerClock())
            try UserStore.validate(username: name)
            if try users.find(username: name) != nil { throw UserStoreError.exists(name) }
            let hash = try PasswordHash.make(try UserCommand.readNewPassword(fromStdin: passwordFromStdin))
            let user = try users.create(username: name, passwordHash: hash)
            printLine("Added user \(user.username).")
        }
    }

    /// `user list`.
    struct List: AdminCommand {
        static let spec = CommandSpec(
            "list", abstract: "List users",
            discussion: """
                Lists the users (name, created, state, how they sign in: password and/or identity
                providers, and usage: the bytes of attachment content stored in the spaces they own,
                counted once per distinct content in each, plus open uploads; what --quota limits); a
                header on a terminal,
                tab-separated lines otherwise.
                """,
            options: [.flag("json", help: "Print a JSON array")])

        let databasePath: String
        let json: Bool

        init(_ parsed: ParsedCommand) {
            databasePath = parsed.databasePath
            json = parsed.flag("json")
        }

        func run() throws {
            let database = try openServerDatabase(databasePath)
            let users = UserStore(database: database, clock: ServerClock())
            let all = try users.all()
            let usage = try database.read { db in
                try Dictionary(uniqueKeysWithValues: all.map { ($0.id, try ContentStore.usage(db, userID: $0.id, excludingUpload: nil)) })
            }
            try UserCommand.printList(all, identities: try IdentityStore(database: database, clock: ServerClock()).all(),
                                      usage: usage, json: json)
        }
    }

    /// `user passwd NAME`.
    struct Passwd: AdminCommand {
        static let spec = CommandSpec(
            "passwd", abstract: "Set a new password; signs the user out everywhere",
            discussion: """
                Sets a new password for NAME, asked twice without echo (or one line of stdin with
                --password-stdin), and ends every session of NAME.
                """,
            options: [passwordStdin], positionals: [nameArgument])

        let account: NamedAccount
        let passwordFromStdin: Bool

        init(_ parsed: ParsedCommand) {
            account = NamedAccount(parsed)
            passwordFromStdin = parsed.flag("password-stdin")
        }

        func run() throws {
            let (users, user) = try account.existing()
            let hash = try PasswordHash.make(try UserCommand.readNewPassword(fromStdin: passwordFromStdin))
            try users.setPassword(username: user.username, passwordHash: hash)
            printLine("Changed the password of \(user.username) and ended all of their sessions.")
        }
    }

    /// `user disable NAME`.
    struct Disable: NamedAccountCommand {
        static let spec = CommandSpec(
            "disable", abstract: "Refuse sign-in and revoke every session and token of the user",
            positionals: [nameArgument])

        let account: NamedAccount

        func run() throws {
            try account.users().setDisabled(username: account.name, disabled: true)
            printLine("Disabled \(account.name) and ended all of their sessions and tokens.")
        }
    }

    /// `user enable NAME`.
    struct Enable: NamedAccountCommand {
        static let spec = CommandSpec("enable", abstract: "Allow sign-in again", positionals: [nameArgument])

        let account: NamedAccount

        func run() throws {
            try account.users().setDisabled(username: account.name, disabled: false)
            printLine("Enabled \(account.name).")
        }
    }

    /// `user rename NAME NEW-NAME`: for an account whose name came from an identity provider.
    struct Rename: AdminCommand {
        static let spec = CommandSpec(
            "rename", abstract: "Give a user another name",
            discussion: """
                Renames the user NAME to NEW-NAME (same rules as for `user add`). Sessions, tokens,
                identities and notes stay with the account; the user signs in with the new name.
                """,
            positionals: [nameArgument, .init("NEW-NAME", help: "The new user name")])

        let account: NamedAccount
        let newName: String

        init(_ parsed: ParsedCommand) {
            account = NamedAccount(parsed)
            newName = parsed.argument("NEW-NAME")
        }

        func run() throws {
            try account.users().rename(username: account.name, to: newName)
            printLine("Renamed \(account.name) to \(newName).")
        }
    }

    /// `user delete NAME`: cannot be undone, so it asks, or needs `--yes`.
    struct Delete: AdminCommand {
        static let spec = CommandSpec(
            "delete", abstract: "Remove a user with all of their notes, history, sessions and tokens",
            discussion: """
                Removes the user NAME with all of their notes, history, sessions and tokens; asks first
                on a terminal, needs --yes otherwise.
                """,
            options: [.flag("yes", short: "y", help: "Do not ask (required when stdin is not a terminal)")],
            positionals: [nameArgument])

        let account: NamedAccount
        let confirmed: Bool

        init(_ parsed: ParsedCommand) {
            account = NamedAccount(parsed)
            confirmed = parsed.flag("yes")
        }

        func run() throws {
            let (users, user) = try account.existing()
            try UserCommand.confirmDelete(user, users: users, confirmed: confirmed)
            let notes = try users.delete(userID: user.id)
            // The rows are gone; their content files go too (a crash before this leaves only
            // files nothing refers to, which no user can reach).
            // (On PostgreSQL the bytes are rows keyed by the user, gone with the account.)
            if case .sqlite(let path) = try DatabaseLocation(account.databasePath) { try FileBlobStore(databasePath: path).removeUser(user.id) }
            printLine("Deleted user \(user.username) and their \(notes) note\(notes == 1 ? "" : "s"), sessions and tokens.")
        }
    }

    /// Users as a table (header on a terminal, tab-separated otherwise) or as a JSON array.
    static func printList(_ users: [UserRecord], identities: [IdentityRecord], usage: [Int64: Int], json: Bool) throws {
        let byUser = Dictionary(grouping: identities, by: \.userID)
        if json {
            let items = users.map { user in
                AdminUserItem(id: user.id, username: user.username, createdAt: WireTime.string(fromMilliseconds: user.createdAt),
                              disabled: user.disabled, password: UserStore.hasPassword(user),
                              identities: (byUser[user.id] ?? []).map { .init(provider: $0.provider, issuer: $0.issuer, subject: $0.subject) },
                              usageBytes: usage[user.id] ?? 0)
            }
            try AdminListing.printJSON(items)
            return
        }
        var table = TextTable(header: ["USER", "CREATED", "STATE", "SIGN-IN", "USAGE"])
        for user in users {
            let methods = (UserStore.hasPassword(user) ? ["password"] : []) + (byUser[user.id] ?? []).map(\.provider)
            table.append([user.username, WireTime.string(fromMilliseconds: user.createdAt), user.disabled ? "disabled" : "active",
                          methods.isEmpty ? "none" : methods.joined(separator: ", "), String(usage[user.id] ?? 0)])
        }
        AdminListing.print(table)
    }

    /// Deleting cannot be undone: a person at a terminal confirms it; a script says `--yes`.
    static func confirmDelete(_ user: UserRecord, users: UserStore, confirmed: Bool) throws {
        if confirmed { return }
        guard SecretPrompt.stdinIsTerminal else {
            throw UsageError("deleting \(user.username) cannot be undone; pass --yes to confirm when standard input is not a terminal")
        }
        let notes = try users.noteCount(userID: user.id)
        let answer = SecretPrompt.readVisible(
            prompt: "Delete user \(user.username) with \(notes) note\(notes == 1 ? "" : "s"), their history, sessions and tokens? This cannot be undone. [y/N] ")
        guard let answer, ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw AdminError("kept \(user.username); nothing was deleted")
        }
    }

    /// The new password: one stdin line for scripts, or typed twice at a no-echo prompt. The
    /// length rule is checked on the first entry, so nobody types a refused password twice.
    static func readNewPassword(fromStdin: Bool) throws -> String {
        if fromStdin {
            guard let line = SecretPrompt.readLineFromStdin() else { throw AdminError("no password on standard input") }
            try checkLength(line)
            return line
        }
        guard SecretPrompt.stdinIsTerminal else {
            throw AdminError("no terminal to ask for a password; pass it on standard input with --password-stdin")
        }
        guard let first = SecretPrompt.readHidden(prompt: "New password: ") else { throw AdminError("no password given") }
        try checkLength(first)
        guard let second = SecretPrompt.readHidden(prompt: "Repeat it: ") else { throw AdminError("no password given") }
        guard first == second else { throw AdminError("the two passwords differ") }
        return first
    }

    private static func checkLength(_ password: String) throws {
        guard password.count >= 8 else { throw AdminError("a password needs at least 8 characters") }
        guard password.utf8.count <= PasswordHash.maxPasswordBytes else { throw AdminError("the password is too long") }
    }
}

/// One user in `notes-server user list --json` (snake_case keys, like the API).
private struct AdminUserItem: Encodable {
    let id: Int64
    let username: String
    let createdAt: String
    let disabled: Bool
    /// Whether the account has a password (one created by an identity provider has none).
    let password: Bool
    let identities: [Identity]

    struct Identity: Encodable {
        let provider: String
        let issuer: String
        let subject: String
    }
    /// Bytes of attachment content stored (and reserved by open uploads): what `--quota` limits.
    let usageBytes: Int
}

/// An admin command that cannot go on; the message is for the person at the terminal.
struct AdminError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
