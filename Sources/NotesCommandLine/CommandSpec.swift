/// What one command of a program accepts and how it explains itself: the single declaration
/// that parsing, `--help`, `help CMD`, typo suggestions and shell completions are all made from
/// (swift-argument-parser's `CommandConfiguration` with its `@Option`s and `@Argument`s, as data).
///
/// A command with `subcommands` is a group (`notes token`, `notes-server user`): its options
/// marked `inherited` belong to every command below it, so `--db PATH` is declared once.
public struct CommandSpec: Sendable {
    /// The word that selects the command, such as `sync` or `create`.
    public var name: String
    /// One line for the command list of the group above.
    public var abstract: String
    /// The prose of `--help` after the usage line: what the command does, in paragraphs.
    public var discussion: String
    /// Usage lines written by hand, without the program and command words (`PATH --rev N [--json]`),
    /// for a command whose forms a generated line cannot show; empty: one line is generated.
    public var usage: [String]
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]
    public var subcommands: [CommandSpec]
    /// The paragraph after the options, such as "Exit codes: 0 synced, 3 ...".
    public var epilogue: String

    public init(_ name: String, abstract: String, discussion: String = "", usage: [String] = [],
                options: [OptionSpec] = [], positionals: [PositionalSpec] = [],
                subcommands: [CommandSpec] = [], epilogue: String = "") {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.epilogue = epilogue
    }

    /// The direct subcommand called `name`.
    public func subcommand(_ name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The command at `path` below this one (`["token", "create"]`), or nil.
    public func descendant(_ path: [String]) -> CommandSpec? {
        var spec = self
        for name in path {
            guard let next = spec.subcommand(name) else { return nil }
            spec = next
        }
        return spec
    }
}

/// One `--name` a command takes.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without its dashes: `expires-in` is given as `--expires-in`.
    public var name: String
    /// A one-letter alias, given as `-u`.
    public var short: Character?
    public var arity: Arity
    /// One sentence or two; long lines are wrapped in `--help`.
    public var help: String
    /// Whether every subcommand below the declaring group takes it too.
    public var inherited: Bool
    /// Whether the command cannot run without it (`notes export --html OUTDIR`): the parser
    /// reports it missing, and a word given in its place is suggested as its value.
    public var required: Bool

    /// How many values an option takes.
    public enum Arity: Sendable, Equatable {
        /// Present or absent (`--json`).
        case flag
        /// One value (`--server URL`); given twice, the last wins.
        case value(ValueKind, placeholder: String, default: String? = nil)
        /// One value each time, kept in order (`--trusted-proxy CIDR --trusted-proxy CIDR`).
        case repeatable(ValueKind, placeholder: String)
    }

    public init(_ name: String, short: Character? = nil, _ arity: Arity, help: String, inherited: Bool = false, required: Bool = false) {
        precondition(!name.hasPrefix("-"), "option names are declared without their dashes")
        precondition(!required || arity != .flag, "a flag is present or absent, never required")
        self.name = name
        self.short = short
        self.arity = arity
        self.help = help
        self.inherited = inherited
        self.required = required
    }

    /// A present-or-absent option.
    public static func flag(_ name: String, short: Character? = nil, help: String, inherited: Bool = false) -> OptionSpec {
        OptionSpec(name, short: short, .flag, help: help, inherited: inherited)
    }

    /// An option with one value; `default` is what reading it gives when it is absent.
    /// With `required`, the command cannot run without it.
    public static func value(_ name: String, short: Character? = nil, _ kind: ValueKind = .string, placeholder: String,
                             default defaultValue: String? = nil, help: String, inherited: Bool = false,
                             required: Bool = false) -> OptionSpec {
        OptionSpec(name, short: short, .value(kind, placeholder: placeholder, default: defaultValue), help: help,
                   inherited: inherited, required: required)
    }

    /// An option that may be given several times.
    public static func repeatable(_ name: String, _ kind: ValueKind = .string, placeholder: String, help: String) -> OptionSpec {
        OptionSpec(name, .repeatable(kind, placeholder: placeholder), help: help)
    }

    /// The value's kind, nil for a flag.
    public var kind: ValueKind? {
        switch arity {
        case .flag: nil
        case .value(let kind, _, _), .repeatable(let kind, _): kind
        }
    }

    /// `--expires-in DURATION`, `--json`: the option as help and usage lines show it.
    public var synopsis: String {
        switch arity {
        case .flag: "--\(name)"
        case .value(let kind, let placeholder, _), .repeatable(let kind, let placeholder):
            "--\(name) \(kind.choices.map { $0.joined(separator: "|") } ?? placeholder)"
        }
    }
}

/// One word a command takes by position, such as `PATH`.
public struct PositionalSpec: Sendable, Equatable {
    /// The name in usage lines and in `parsed.positional("PATH")`.
    public var name: String
    public var kind: ValueKind
    public var count: Count
    public var help: String

    public enum Count: Sendable, Equatable {
        case required, optional
        /// Any number of words (at least one when `required` is true), taking all that are left.
        case repeating(required: Bool)
    }

    public init(_ name: String, _ kind: ValueKind = .string, _ count: Count = .required, help: String = "") {
        self.name = name
        self.kind = kind
        self.count = count
        self.help = help
    }

    /// `PATH`, `[DIR]`, `PATH...`, `[QUERY...]`: the positional as a usage line shows it.
    public var synopsis: String {
        switch count {
        case .required: name
        case .optional: "[\(name)]"
        case .repeating(let required): required ? "\(name)..." : "[\(name)...]"
        }
    }
}

/// What a value is, which decides how it is checked when parsed and completed in a shell.
public enum ValueKind: Sendable, Equatable {
    case string
    /// A whole number; anything else is a usage error.
    case int
    /// A file (or any path); shells complete file names.
    case file
    /// A folder; shells complete folder names.
    case directory
    /// A server address; checked by the command, which knows what it accepts.
    case url
    /// One of these words; anything else is a usage error naming them.
    case choice([String])
    /// A length of time: `45s`, `90m`, `1h`, `30d`, `2w`, or whole seconds (see `DurationValue`).
    case duration

    /// The words of a choice, nil otherwise.
    public var choices: [String]? {
        if case .choice(let words) = self { return words }
        return nil
    }
}
