/// A command line that does not fit the command: the message says what to fix (exit code 2).
///
/// The parser fills in `command`, the words after the program name that were recognised
/// (`["token", "create"]`), so the report can point at that command's own `--help`; a command
/// that finds a problem later throws it without one and the runner adds its own.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// The command the error is about, without the program name; empty for the program itself.
    public var command: [String]

    public init(_ message: String, command: [String] = []) {
        self.message = message
        self.command = command
    }

    public var description: String { message }

    /// The two lines for stderr: what is wrong, then where its help is, as in
    /// `notes token create: --scope is read or write, not 'admin'` / "See `notes token create --help`."
    public func report(program: String) -> String {
        let name = ([program] + command).joined(separator: " ")
        return "\(name): \(message)\nSee `\(name) --help`."
    }
}
