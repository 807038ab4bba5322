import NotesCommandLine

/// One runnable `notes-server` command: it reads its parsed command line (every option it
/// declares) when made, then runs. Failures are thrown: a `UsageError` is exit 2, anything
/// else exit 1 (see `ServerCommandLine.main`).
protocol AdminCommand: DeclaredCommand {
    init(_ parsed: ParsedCommand) throws
    func run() throws
}

extension ParsedCommand {
    /// `--db PATH`, which every command inherits, else the default database.
    var databasePath: String {
        value("db") ?? ServerConfiguration.defaultDatabasePath()
    }

    /// Whether a command that creates the database also creates missing folders above it:
    /// with `--create-dirs`, or for the default data path (whose folders a fresh machine lacks).
    var createsDatabaseFolders: Bool {
        flag("create-dirs") || databasePath == ServerConfiguration.defaultDatabasePath()
    }
}

extension OptionSpec {
    /// `--create-dirs`, of the commands that may create the database.
    static let createDatabaseFolders = OptionSpec.flag(
        "create-dirs", help: "Create missing folders above --db's file too (always done for the default path)")
}
