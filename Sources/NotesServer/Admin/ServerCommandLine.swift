import NotesCommandLine
import NotesCore

/// The `notes-server` program: its command tree, and the one place a command line becomes a
/// command run and an exit code.
enum ServerCommandLine: DeclaredCommand {
    static let spec = CommandSpec(
        "notes-server", abstract: "the Notes API server (\(NotesVersion.current)).",
        discussion: "Only `serve` and `user add` create a database; the others need an existing one.",
        options: [
            .value("db", .file, placeholder: "PATH",
                   help: "The database, for every command: a SQLite file (default ~/.local/share/notes-server/notes.sqlite, "
                       + "or under $XDG_DATA_HOME), or a postgres:// URL for the PostgreSQL backend several servers share",
                   inherited: true),
            .flag("version", help: "Print the version"),
        ])

    static var subcommands: [any DeclaredCommand.Type] {
        [ServeCommand.self, UserCommand.self, SessionsCommand.self, BackupCommand.self, MigrateDataCommand.self,
         MigrateContentCommand.self]
    }

    static let program = CommandLineProgram("notes-server", root: tree)

    /// Runs `notes-server` with `arguments` (without the program name) and returns the exit code:
    /// 0 done, 2 usage error, 1 any other failure.
    static func main(_ arguments: [String]) -> Int32 {
        program.run(arguments, output: StandardStreams(), version: "notes-server \(NotesVersion.current)", command: { parsed in
            guard let command = command(at: parsed.path) as? any AdminCommand.Type else { return nil }
            try DatabaseLocation.validate(parsed.value("db"))
            try command.init(parsed).run()
            return CommandLineProgram.success
        }, outcome: { error in (1, "\(error)") })
    }
}

/// The admin commands' stdout and stderr, a line at a time.
private struct StandardStreams: CommandLineOutput {
    func write(_ text: String) {
        printLine(String(text.dropLast(text.hasSuffix("\n") ? 1 : 0)))
    }

    func printError(_ line: String) {
        NotesServer.printError(line)
    }
}
