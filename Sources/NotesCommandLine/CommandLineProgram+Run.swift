/// The run loop both programs share: a command line becomes help, a completion script, a usage
/// report or a command run, and every way it ends an exit code (0 done, 2 usage error, the
/// program's own codes for its failures).
///
/// It comes twice, for commands that block (`notes-server`, whose `serve` blocks signals before
/// any thread starts) and for async ones (`notes`); both are the steps below.
extension CommandLineProgram {
    /// The exit code of a run that did what was asked.
    public static let success: Int32 = 0
    /// The exit code of a command line that does not fit the program.
    public static let usage: Int32 = 2

    /// What a program makes of a failure its command threw: the exit code and one sentence for stderr.
    public typealias Outcome = (exitCode: Int32, sentence: String)

    /// Runs `arguments` (without the program name) and returns the exit code.
    ///
    /// A `UsageError` thrown while the command is made or runs is reported as a parse error is,
    /// naming the command's own `--help`; any other error becomes `outcome(error)` and the line
    /// `PROGRAM COMMAND: sentence`.
    /// - Parameters:
    ///   - version: the line `PROGRAM --version` prints.
    ///   - command: runs the parsed command and returns its exit code, or nil when the command
    ///     line named no command (the program alone: `--version`, else the list of commands).
    ///   - outcome: the exit code and sentence of a failure.
    public func run(_ arguments: [String], output: some CommandLineOutput, version: String,
                    command: (ParsedCommand) throws -> Int32?,
                    outcome: (any Error) -> Outcome) -> Int32 {
        let parsed: ParsedCommand
        switch start(arguments, output: output) {
        case .finished(let exitCode): return exitCode
        case .run(let command): parsed = command
        }
        do {
            return try command(parsed) ?? programAlone(parsed, output: output, version: version)
        } catch {
            return report(error, of: parsed, output: output, outcome: outcome)
        }
    }

    /// `run` for a program whose commands are async.
    public func run(_ arguments: [String], output: some CommandLineOutput, version: String,
                    command: (ParsedCommand) async throws -> Int32?,
                    outcome: (any Error) -> Outcome) async -> Int32 {
        let parsed: ParsedCommand
        switch start(arguments, output: output) {
        case .finished(let exitCode): return exitCode
        case .run(let command): parsed = command
        }
        do {
            return try await command(parsed) ?? programAlone(parsed, output: output, version: version)
        } catch {
            return report(error, of: parsed, output: output, outcome: outcome)
        }
    }

    private enum Start {
        case finished(Int32)
        case run(ParsedCommand)
    }

    /// Parses and answers everything but a command run: help, completion, a usage error.
    private func start(_ arguments: [String], output: some CommandLineOutput) -> Start {
        let invocation: Invocation
        do {
            invocation = try parse(arguments)
        } catch {
            output.printError(error.report(program: name))
            return .finished(Self.usage)
        }
        switch invocation {
        case .help(let path):
            output.write(help(for: path))
            return .finished(Self.success)
        case .completion(let shell):
            output.write(completionScript(shell))
            return .finished(Self.success)
        case .run(let parsed):
            return .run(parsed)
        }
    }

    /// The program without a command: `--version`, else the list of commands (a usage error).
    private func programAlone(_ parsed: ParsedCommand, output: some CommandLineOutput, version: String) -> Int32 {
        if parsed.flag("version") {
            output.write(version + "\n")
            return Self.success
        }
        output.write(help(for: []))
        return Self.usage
    }

    /// Writes what went wrong to stderr and returns its exit code.
    private func report(_ error: any Error, of parsed: ParsedCommand, output: some CommandLineOutput,
                        outcome: (any Error) -> Outcome) -> Int32 {
        if var error = error as? UsageError {
            if error.command.isEmpty { error.command = parsed.path }
            output.printError(error.report(program: name))
            return Self.usage
        }
        let command = ([name] + parsed.path).joined(separator: " ")
        let (exitCode, sentence) = outcome(error)
        output.printError("\(command): \(sentence)")
        if exitCode == Self.usage { output.printError("See `\(command) --help`.") }
        return exitCode
    }
}
