import Foundation
import NotesCore

/// `notes-server user add|list|passwd|disable|enable`: account administration on the host.
enum UserCommand {
    static let help = """
        Usage: notes-server user <add|list|passwd|disable|enable> [NAME] [--db PATH] [--password-stdin]

          add NAME       Create a user; asks for the password twice (no echo), or reads one
                         line with --password-stdin
          list           List users (name, created, disabled)
          passwd NAME    Set a new password; signs the user out everywhere
          disable NAME   Refuse sign-in and revoke every session and token of the user
          enable NAME    Allow sign-in again
        """

    static func run(_ arguments: inout Arguments) throws {
        let databasePath = try arguments.option("--db") ?? ServerConfiguration.defaultDatabasePath()
        let passwordFromStdin = arguments.flag("--password-stdin")
        let action = try arguments.requiredPositional("a user command (add, list, passwd, disable, enable)")
        let name = action == "list" ? nil : try arguments.requiredPositional("a user name")
        try arguments.finish()
        // Only `add` may create the database; the others need the one the server uses.
        let database = action == "add" ? try openDatabase(at: databasePath) : try openExistingDatabase(at: databasePath)
        let users = UserStore(database: database, clock: ServerClock())
        switch (action, name) {
        case ("add", let name?):
            try UserStore.validate(username: name)
            if try users.find(username: name) != nil { throw UserStoreError.exists(name) }
            let hash = try PasswordHash.make(try readNewPassword(fromStdin: passwordFromStdin))
            _ = try users.create(username: name, passwordHash: hash)
            printLine("Added user \(name).")
        case ("list", nil):
            for user in try users.all() {
                printLine("\(user.username)\t\(WireTime.string(fromMilliseconds: user.createdAt))\(user.disabled ? "\tdisabled" : "")")
            }
        case ("passwd", let name?):
            guard try users.find(username: name) != nil else { throw UserStoreError.notFound(name) }
            let hash = try PasswordHash.make(try readNewPassword(fromStdin: passwordFromStdin))
            try users.setPassword(username: name, passwordHash: hash)
            printLine("Changed the password of \(name) and ended all of their sessions.")
        case ("disable", let name?):
            try users.setDisabled(username: name, disabled: true)
            printLine("Disabled \(name) and ended all of their sessions and tokens.")
        case ("enable", let name?):
            try users.setDisabled(username: name, disabled: false)
            printLine("Enabled \(name).")
        default:
            throw UsageError("unknown user command '\(action)'")
        }
    }

    /// The new password: one stdin line for scripts, or typed twice at a no-echo prompt.
    private static func readNewPassword(fromStdin: Bool) throws -> String {
        let password: String
        if fromStdin {
            guard let line = SecretPrompt.readLineFromStdin() else { throw AdminError("no password on standard input") }
            password = line
        } else {
            guard SecretPrompt.stdinIsTerminal else {
                throw AdminError("no terminal to ask for a password; pass it on standard input with --password-stdin")
            }
            guard let first = SecretPrompt.readHidden(prompt: "New password: "),
                  let second = SecretPrompt.readHidden(prompt: "Repeat it: ") else { throw AdminError("no password given") }
            guard first == second else { throw AdminError("the two passwords differ") }
            password = first
        }
        guard password.count >= 8 else { throw AdminError("a password needs at least 8 characters") }
        guard password.utf8.count <= PasswordHash.maxPasswordBytes else { throw AdminError("the password is too long") }
        return password
    }
}

/// An admin command that cannot go on; the message is for the person at the terminal.
struct AdminError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
