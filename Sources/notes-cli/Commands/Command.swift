import NotesCommandLine
import NotesCore

/// One `notes` subcommand: its name, its help, and what it does.
protocol Command: Sendable {
    /// The word after `notes`, such as `sync`.
    static var name: String { get }
    /// One line for the command list in `notes --help`.
    static var summary: String { get }
    /// The full `notes NAME --help` text: usage line first, then options.
    static var help: String { get }

    /// Parses `arguments` (everything after the command name) and runs.
    /// - Throws: `CLIError` for expected failures (with their exit code); anything else is exit 1.
    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode
}
