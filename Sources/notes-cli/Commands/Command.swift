import NotesCommandLine
import NotesCore

/// One runnable `notes` command: declared by its `spec`, it reads its parsed command line
/// (every option it declares, and the checks that need nothing but the command line) when
/// made, then runs.
protocol Command: DeclaredCommand, Sendable {
    /// - Throws: `UsageError` for options that do not go together.
    init(_ parsed: ParsedCommand) throws

    /// - Throws: the command's own failures as `CLIError`, and the layers' errors (`ClientError`,
    ///   `AccountError`, ...) with their causes; `CLI.outcome(of:)` gives each its exit code.
    func run(_ terminal: Terminal) async throws -> ExitCode
}
