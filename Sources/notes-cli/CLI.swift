import NotesCommandLine
import NotesCore

/// The `notes` program: picks the subcommand, runs it, and turns every outcome into an exit code.
enum CLI {
    static let overview = """
        notes: keep a folder of Markdown notes in sync with a Notes server.

        Usage: notes <command> [options]

        """

    /// Runs `notes` with `argv` (without the program name) and returns the exit code.
    static func main(_ argv: [String], terminal: Terminal = Terminal()) async -> ExitCode {
        var arguments = Arguments(argv)
        guard let name = arguments.positional() else {
            if arguments.flag("--version") { return await run(VersionCommand.self, Arguments([]), terminal) }
            let wantsHelp = arguments.flag("--help", short: "-h")
            terminal.write(usage())
            return wantsHelp && arguments.isEmpty ? .success : .usage
        }
        if name == "help" {
            guard let topic = arguments.positional() else {
                terminal.write(usage())
                return .success
            }
            guard let command = CommandRegistry.command(named: topic) else {
                terminal.printError("notes: unknown command '\(topic)'. See `notes --help`.")
                return .usage
            }
            terminal.print(command.help)
            return .success
        }
        guard let command = CommandRegistry.command(named: name) else {
            terminal.printError("notes: unknown command '\(name)'. See `notes --help`.")
            return .usage
        }
        if arguments.flag("--help", short: "-h") {
            terminal.print(command.help)
            return .success
        }
        return await run(command, arguments, terminal)
    }

    private static func run(_ command: any Command.Type, _ arguments: Arguments, _ terminal: Terminal) async -> ExitCode {
        var arguments = arguments
        do {
            return try await command.run(&arguments, terminal: terminal)
        } catch let error as UsageError {
            terminal.printError("notes \(command.name): \(error.message)")
            terminal.printError("See `notes \(command.name) --help`.")
            return .usage
        } catch {
            let outcome = outcome(of: error)
            terminal.printError("notes \(command.name): \(outcome.sentence)")
            if outcome.exitCode == .usage { terminal.printError("See `notes \(command.name) --help`.") }
            return outcome.exitCode
        }
    }

    /// The one place a failure becomes an exit code and a sentence for stderr (DESIGN 3): the
    /// layers below keep the cause (`ClientError`) and commands state their own (`CLIError`).
    static func outcome(of error: any Error) -> (exitCode: ExitCode, sentence: String) {
        switch error {
        case let error as CLIError: (error.exitCode, error.message)
        case let error as ClientError: outcome(of: error)
        default: (.failure, "\(error)")
        }
    }

    /// Exit 4 for a session or token that is over, 5 when the server is out of reach, 1 for
    /// everything else the server (or something pretending to be it) did.
    static func outcome(of error: ClientError) -> (exitCode: ExitCode, sentence: String) {
        switch error {
        case .sessionEnded:
            (.signInRequired, "session expired or revoked: run `notes login`")
        case .renewalRefused(let refusal):
            (.signInRequired, "the server refused to renew the session (\(refusal.message)): run `notes login`")
        case .tokenRefused:
            (.signInRequired, "the server refused the token in NOTES_TOKEN (expired, revoked or unknown): "
             + "create a new one with `notes token create`, or unset NOTES_TOKEN to use `notes login`")
        case .unreachable(let server, let cause) where cause.kind == .deadlineExceeded:
            (.serverUnreachable, "\(server) is too slow: \(cause.description)")
        case .unreachable(let server, let cause):
            (.serverUnreachable, "cannot reach \(server): \(cause.description)")
        case .transportFailed(let server, let cause):
            (.failure, "request to \(server) failed: \(cause.description)")
        case .status(let status):
            (.failure, status.description)
        case .answerTooLarge(let cause), .redirectRefused(let cause):
            (.failure, cause.description)
        case .contentMismatch(let path):
            (.failure, "the server sent \(Terminal.printable(path)) with content that does not match its hash "
             + "(damaged on the way, or a faulty server); refused it")
        case .noteOverLimit(let path, let bytes, let limit):
            (.failure, "the server sent \(Terminal.printable(path)) with \(bytes) bytes, over its "
             + "published note limit of \(limit) bytes; refused it")
        case .answerNotUnderstood(let what, let reason):
            (.failure, "the server's answer to \(what) was not understood (\(reason))")
        case .protocolViolation(let sentence):
            (.failure, sentence)
        case .invalidRequestPath(let path, let server):
            (.failure, "cannot build a URL for \(path) on \(server)")
        }
    }

    static func usage() -> String {
        var names: [String] = []
        var summaries: [String] = []
        for command in CommandRegistry.all {
            names.append(command.name)
            summaries.append(command.summary)
        }
        let width = names.map(\.count).max() ?? 0
        let lines = zip(names, summaries).map { name, summary in
            "  " + name + String(repeating: " ", count: width + 2 - name.count) + summary
        }
        return overview + "\nCommands:\n" + lines.joined(separator: "\n") + """


            Options:
              -h, --help     Show help (also `notes help <command>`)
              --version      Print the version

            Environment: NOTES_SERVER, NOTES_TOKEN (a personal access token for scripts).
            Output has no colour (so NO_COLOR needs nothing); progress goes to stderr on a terminal only.
            Exit codes: 0 done, 1 failure, 2 usage error, 3 sync left conflicts, 4 sign-in required,
            5 server unreachable.

            """
    }
}
