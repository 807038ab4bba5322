/// The documented exit codes of `notes` (docs/architecture.md, section 4.1), so scripts can branch on the outcome.
enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    /// A sync finished but left conflict copies for the user to look at.
    case conflicts = 3
    case signInRequired = 4
    case serverUnreachable = 5
}

/// A command's own expected failure: one clear sentence for stderr and the exit code that
/// classifies it. A command line that does not fit is a `UsageError`; the layers below the
/// commands throw errors in their own words (`ClientError`, `AccountError`, `FolderError`,
/// `ExportError`…), each classified once, in `CLI.outcome(of:)`.
struct CLIError: Error, Sendable, CustomStringConvertible {
    var exitCode: ExitCode
    var message: String

    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    static func failure(_ message: String) -> CLIError { CLIError(.failure, message) }

    var description: String { message }
}
