import NotesCommandLine
import NotesCore

/// `notes version`: the client version.
struct VersionCommand: Command {
    static let spec = CommandSpec("version", abstract: "Print the version of notes",
                                  discussion: "Prints the version of the notes client (also `notes --version`).")

    /// What `notes version` and `notes --version` print.
    static var line: String { "notes \(NotesVersion.current)" }

    init(_ parsed: ParsedCommand) {}

    func run(_ terminal: Terminal) async throws -> ExitCode {
        terminal.print(Self.line)
        return .success
    }
}
