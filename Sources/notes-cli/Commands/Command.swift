import NotesCommandLine
import NotesCore

/// One runnable `notes` command: declared by its `spec`, it reads its parsed command line
/// (every option it declares, and the checks that need nothing but the command line) when
/// made, then runs.
protocol Command: DeclaredCommand, Sendable {
    /// - Throws: `CLIError.usage` (or `UsageError`) for options that do not go together.
    init(_ parsed: ParsedCommand) throws

    /// - Throws: `CLIError` for expected failures (with their exit code); anything else is exit 1.
    func run(_ terminal: Terminal) async throws -> ExitCode
}
