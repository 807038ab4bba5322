import NotesCommandLine

/// A small program shaped like the real ones: an inherited `--db`, a group with subcommands,
/// and a command with every kind of option.
enum SampleTree {
    static let root = CommandSpec(
        "tool", abstract: "A tool to test the parser with.",
        options: [
            .value("db", .file, placeholder: "PATH", help: "The database", inherited: true),
            .flag("version", help: "Print the version"),
        ],
        subcommands: [
            CommandSpec("user", abstract: "Manage users", subcommands: [
                CommandSpec("list", abstract: "List users", options: [.flag("json", help: "Print JSON")]),
                CommandSpec("add", abstract: "Add a user", discussion: "Adds NAME.",
                            options: [.flag("password-stdin", help: "Read the password from stdin")],
                            positionals: [PositionalSpec("NAME")]),
            ]),
            CommandSpec("sync", abstract: "Sync a folder", discussion: "Syncs DIR.",
                        options: [
                            .flag("json", help: "Print JSON"),
                            .flag("long", short: "l", help: "Long lines"),
                            .flag("yes", short: "y", help: "Do not ask"),
                            .value("limit", .int, placeholder: "N", default: "20", help: "At most N"),
                            .repeatable("proxy", placeholder: "CIDR", help: "A proxy; repeatable"),
                            .value("expires-in", .duration, placeholder: "DURATION", help: "Lifetime"),
                            .value("scope", .choice(["read", "write"]), placeholder: "SCOPE", help: "What it may do"),
                            .value("username", short: "u", placeholder: "NAME", help: "The account"),
                        ],
                        positionals: [PositionalSpec("DIR", .directory, .optional)],
                        epilogue: "Exit codes: 0 synced, 1 failure."),
            CommandSpec("cat", abstract: "Print files",
                        positionals: [PositionalSpec("PATH", .file, .repeating(required: true))]),
            CommandSpec("export", abstract: "Export a folder",
                        options: [.value("html", .directory, placeholder: "OUTDIR", help: "Where to write", required: true)],
                        positionals: [PositionalSpec("DIR", .directory, .optional)]),
        ])

    static let program = CommandLineProgram("tool", root: root)

    /// The command `arguments` run, failing the test when they ask for something else.
    static func run(_ arguments: [String]) throws -> ParsedCommand {
        guard case .run(let parsed) = try program.parse(arguments) else { throw NotARun(arguments: arguments) }
        return parsed
    }

    /// The usage error `arguments` give, nil when they parse.
    static func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try program.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    struct NotARun: Error {
        var arguments: [String]
    }
}
