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
        [ServeCommand.self, UserCommand.self, SessionsCommand.self, BackupCommand.self, MigrateDataCommand.self]
    }

    static let program = CommandLineProgram("notes-server", root: tree)

    /// Runs `notes-server` with `arguments` (without the program name) and returns the exit code.
    static func main(_ arguments: [String]) -> Int32 {
        var path: [String] = []
        do {
            switch try program.parse(arguments) {
            case .help(let topic):
                printText(program.help(for: topic))
                return 0
            case .completion(let shell):
                printText(program.completionScript(shell))
                return 0
            case .run(let parsed):
                path = parsed.path
                guard let command = command(at: parsed.path) as? any AdminCommand.Type else {
                    // The program itself: `--version`, else the list of commands (a usage error).
                    if parsed.flag("version") {
                        printLine("notes-server \(NotesVersion.current)")
                        return 0
                    }
                    printText(program.help(for: []))
                    return 2
                }
                try DatabaseLocation.validate(parsed.value("db"))
                try command.init(parsed).run()
                return 0
            }
        } catch let error as UsageError {
            var error = error
            if error.command.isEmpty { error.command = path }
            printError(error.report(program: "notes-server"))
            return 2
        } catch {
            printError((["notes-server"] + path).joined(separator: " ") + ": \(error)")
            return 1
        }
    }

    /// Writes text that already ends in a newline.
    private static func printText(_ text: String) {
        printLine(String(text.dropLast(text.hasSuffix("\n") ? 1 : 0)))
    }
}
