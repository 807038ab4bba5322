import NotesCommandLine
import NotesCore

/// `notes version`: the client version.
struct VersionCommand: Command {
    static let name = "version"
    static let summary = "Print the version of notes"
    static let help = """
        Usage: notes version

        Prints the version of the notes client (also `notes --version`).
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        try arguments.finish()
        terminal.print("notes \(NotesVersion.current)")
        return .success
    }
}
