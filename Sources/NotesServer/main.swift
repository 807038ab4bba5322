import Foundation
import NotesCore

let overview = """
    notes-server \(NotesVersion.current): the Notes API server.

    Usage: notes-server <command> [options]

    Commands:
      serve      Run the API (see `notes-server serve --help`)
      user       Add, list, change, disable or delete users
      sessions   List signed-in sessions and end them
      backup     Copy the live database to a file

    Every command takes --db PATH (default ~/.local/share/notes-server/notes.sqlite).
    Only `serve` and `user add` create a database; the others need an existing one.
    """

var arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
let command = arguments.positional()
let wantsHelp = arguments.flag("--help", short: "-h")
do {
    switch command {
    case nil where arguments.flag("--version"):
        printLine("notes-server \(NotesVersion.current)")
    case nil:
        printLine(overview)
        exit(wantsHelp ? 0 : 2)
    case "serve"?:
        if wantsHelp { printLine(ServeCommand.help) } else { try ServeCommand.run(&arguments) }
    case "user"?:
        if wantsHelp { printLine(UserCommand.help) } else { try UserCommand.run(&arguments) }
    case "sessions"?:
        if wantsHelp { printLine(SessionsCommand.help) } else { try SessionsCommand.run(&arguments) }
    case "backup"?:
        if wantsHelp { printLine(BackupCommand.help) } else { try BackupCommand.run(&arguments) }
    case let other?:
        let error = CommandSuggestion.unknown("command", other, known: ["serve", "user", "sessions", "backup"])
        printError("notes-server: \(error.message). See `notes-server --help`.")
        exit(2)
    }
} catch let error as UsageError {
    printError("notes-server \(command ?? ""): \(error.message). See `notes-server \(command ?? "") --help`.")
    exit(2)
} catch {
    printError("notes-server \(command ?? ""): \(error)")
    exit(1)
}
