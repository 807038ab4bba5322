/// A program's whole command line (`notes`, `notes-server`): its command tree plus the two
/// commands every program gets from the tree for free, `help [COMMAND...]` and
/// `completion bash|zsh|fish`.
public struct CommandLineProgram: Sendable {
    /// The program's name as typed: `notes`.
    public let name: String
    /// The tree, with `help` and `completion` added at the end of the root's commands.
    public let root: CommandSpec

    /// What a command line asks for.
    public enum Invocation: Sendable {
        /// Run this command (the root itself when no command was named).
        case run(ParsedCommand)
        /// Print the help of the command at this path (`--help`, `-h`, `help CMD SUB`).
        case help([String])
        /// Print the completion script for this shell.
        case completion(Shell)
    }

    /// The shells `completion` writes scripts for.
    public enum Shell: String, Sendable, CaseIterable {
        case bash, zsh, fish
    }

    public init(_ name: String, root: CommandSpec) {
        self.name = name
        var root = root
        precondition(root.subcommand("help") == nil && root.subcommand("completion") == nil,
                     "help and completion are added by CommandLineProgram")
        root.subcommands += [
            CommandSpec("help", abstract: "Show the help of a command (also COMMAND --help)",
                        discussion: "Prints the help of COMMAND, or of one of its subcommands (`\(name) help token create`); "
                            + "without a command, the list of commands.",
                        positionals: [PositionalSpec("COMMAND", .string, .repeating(required: false))]),
            CommandSpec("completion", abstract: "Print a shell completion script (bash, zsh or fish)",
                        discussion: """
                            Prints a script that completes \(name)'s commands, options and their values in SHELL. Load it
                            from your shell's startup file:
                              bash  (~/.bashrc)                   source <(\(name) completion bash)
                              zsh   (~/.zshrc, after compinit)    source <(\(name) completion zsh)
                              fish                                \(name) completion fish > ~/.config/fish/completions/\(name).fish
                            """,
                        positionals: [PositionalSpec("SHELL", .choice(Shell.allCases.map(\.rawValue)))]),
        ]
        self.root = root
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: `UsageError` naming the command it concerns, for a command line that does not
    ///   fit the tree: an unknown command or option (with the nearest known one), a missing or
    ///   malformed value, a missing or extra positional.
    public func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var parser = CommandLineParser(root: root)
        let parsed: ParsedCommand
        do {
            parsed = try parser.parse(arguments)
        } catch {
            // `notes sync --bogus --help` still shows the help: the user is asking how it goes.
            if parser.wantsHelp { return .help(parser.path) }
            throw error
        }
        if parser.wantsHelp { return .help(parsed.path) }
        switch parsed.path {
        case ["help"]:
            let topic = parsed.positionals("COMMAND")
            var spec = root
            for (depth, word) in topic.enumerated() {
                guard let next = spec.subcommand(word) else {
                    let group = Array(topic.prefix(depth))
                    throw UsageError(CommandLineParser.unknownCommand(word, in: spec, group: group), command: ["help"])
                }
                spec = next
            }
            return .help(topic)
        case ["completion"]:
            // The parser has checked the word against the choices.
            return .completion(Shell(rawValue: parsed.positional("SHELL") ?? "") ?? .bash)
        default:
            return .run(parsed)
        }
    }

    /// The `--help` text of the command at `path` ([] for the program).
    public func help(for path: [String]) -> String {
        HelpFormatter(program: name, root: root).help(for: path)
    }

    /// The completion script for `shell`.
    public func completionScript(_ shell: Shell) -> String {
        let model = CompletionModel(program: name, root: root)
        return switch shell {
        case .bash: BashCompletion(model: model).script()
        case .zsh: ZshCompletion(model: model).script()
        case .fish: FishCompletion(model: model).script()
        }
    }
}
