import Foundation
import NotesCore

/// `notes-server user add|list|passwd|disable|enable|delete`: account administration on the host.
enum UserCommand {
    static let help = """
        Usage: notes-server user <add|list|passwd|disable|enable|delete> [NAME] [--db PATH] [--password-stdin]

          add NAME       Create a user; asks for the password (at least 8 characters) and then
                         to repeat it (no echo), or reads one line with --password-stdin.
                         NAME: letters of any script, digits, '.', '_', '-'; compared ignoring
                         case, so `Zoë` and `zoë` are one account
          list [--json]  List users (name, created, state); a header on a terminal,
                         tab-separated lines otherwise
          passwd NAME    Set a new password; signs the user out everywhere
          disable NAME   Refuse sign-in and revoke every session and token of the user
          enable NAME    Allow sign-in again
          delete NAME [--yes]
                         Remove the user with all of their notes, history, sessions and tokens;
                         asks first on a terminal, needs --yes otherwise
        """

    static let actions = ["add", "list", "passwd", "disable", "enable", "delete"]

    static func run(_ arguments: inout Arguments) throws {
        let databasePath = try arguments.option("--db") ?? ServerConfiguration.defaultDatabasePath()
        let passwordFromStdin = arguments.flag("--password-stdin")
        let json = arguments.flag("--json")
        let confirmed = arguments.flag("--yes", short: "-y")
        let action = try arguments.requiredPositional("a user command (\(actions.joined(separator: ", ")))")
        guard actions.contains(action) else { throw CommandSuggestion.unknown("user command", action, known: actions) }
        let name = action == "list" ? nil : try arguments.requiredPositional("a user name")
        try arguments.finish()
        if json && action != "list" { throw UsageError("--json goes with `user list`") }
        if confirmed && action != "delete" { throw UsageError("--yes goes with `user delete`") }
        // Only `add` may create the database; the others need the one the server uses.
        let database = action == "add" ? try openDatabase(at: databasePath) : try openExistingDatabase(at: databasePath)
        let users = UserStore(database: database, clock: ServerClock())
        switch (action, name) {
        case ("add", let name?):
            try UserStore.validate(username: name)
            if try users.find(username: name) != nil { throw UserStoreError.exists(name) }
            let hash = try PasswordHash.make(try readNewPassword(fromStdin: passwordFromStdin))
            let user = try users.create(username: name, passwordHash: hash)
            printLine("Added user \(user.username).")
        case ("list", nil):
            try printList(try users.all(), json: json)
        case ("passwd", let name?):
            guard let user = try users.find(username: name) else { throw UserStoreError.notFound(name) }
            let hash = try PasswordHash.make(try readNewPassword(fromStdin: passwordFromStdin))
            try users.setPassword(username: user.username, passwordHash: hash)
            printLine("Changed the password of \(user.username) and ended all of their sessions.")
        case ("disable", let name?):
            try users.setDisabled(username: name, disabled: true)
            printLine("Disabled \(name) and ended all of their sessions and tokens.")
        case ("enable", let name?):
            try users.setDisabled(username: name, disabled: false)
            printLine("Enabled \(name).")
        case ("delete", let name?):
            guard let user = try users.find(username: name) else { throw UserStoreError.notFound(name) }
            try confirmDelete(user, users: users, confirmed: confirmed)
            let notes = try users.delete(userID: user.id)
            printLine("Deleted user \(user.username) and their \(notes) note\(notes == 1 ? "" : "s"), sessions and tokens.")
        default:
            throw CommandSuggestion.unknown("user command", action, known: actions)
        }
    }

    /// Users as a table (header on a terminal, tab-separated otherwise) or as a JSON array.
    private static func printList(_ users: [UserRecord], json: Bool) throws {
        if json {
            let items = users.map { AdminUserItem(id: $0.id, username: $0.username,
                                                  createdAt: WireTime.string(fromMilliseconds: $0.createdAt), disabled: $0.disabled) }
            printLine(String(decoding: try WireJSON.encoder().encode(items), as: UTF8.self))
            return
        }
        var table = TextTable(header: ["USER", "CREATED", "STATE"])
        for user in users {
            table.append([user.username, WireTime.string(fromMilliseconds: user.createdAt), user.disabled ? "disabled" : "active"])
        }
        FileHandle.standardOutput.write(Data(table.render(forTerminal: isatty(STDOUT_FILENO) == 1).utf8))
    }

    /// Deleting cannot be undone: a person at a terminal confirms it; a script says `--yes`.
    private static func confirmDelete(_ user: UserRecord, users: UserStore, confirmed: Bool) throws {
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
    private static func readNewPassword(fromStdin: Bool) throws -> String {
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
}

/// An admin command that cannot go on; the message is for the person at the terminal.
struct AdminError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
