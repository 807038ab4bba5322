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
        } catch let error as CLIError {
            terminal.printError("notes \(command.name): \(error.message)")
            if error.exitCode == .usage { terminal.printError("See `notes \(command.name) --help`.") }
            return error.exitCode
        } catch {
            terminal.printError("notes \(command.name): \(error)")
            return .failure
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

            Environment: NOTES_SERVER, NOTES_TOKEN (a personal access token for scripts), NO_COLOR.
            Exit codes: 0 done, 1 failure, 2 usage error, 3 sync left conflicts, 4 sign-in required,
            5 server unreachable.

            """
    }
}
