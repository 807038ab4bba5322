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
}
