/// Reads a command line against a `CommandSpec` tree, left to right, once.
///
/// Words that name a subcommand descend the tree; options may come before or after the
/// subcommand (`notes-server --db X user list` and `notes-server user list --db X` are one
/// command line), since each option's arity is known from the tree, even for an option of a
/// command not yet reached. `--name value`, `--name=value`, `-u value` and `-ly` (short flags
/// together) are read; `--` ends the options; `-` alone is a word (stdin, by convention).
struct CommandLineParser {
    let root: CommandSpec
    /// The command reached so far, as words after the program name.
    private(set) var path: [String] = []
    /// Whether `--help` or `-h` came before any `--`.
    private(set) var wantsHelp = false

    private var node: CommandSpec
    private var given: [String: [String]] = [:]
    /// Options in the order given, to check each against the final command's scope.
    private var order: [(typed: String, option: OptionSpec)] = []
    private var words: [String] = []

    init(root: CommandSpec) {
        self.root = root
        self.node = root
    }

    mutating func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommand {
        wantsHelp = arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
        var cursor = Cursor(arguments: arguments)
        var endOfOptions = false
        while let argument = cursor.next() {
            if endOfOptions || argument == "-" || !argument.hasPrefix("-") {
                try take(word: argument, afterOptions: endOfOptions)
            } else if argument == "--" {
                endOfOptions = true
            } else if argument == "--help" || argument == "-h" {
                continue
            } else if argument.hasPrefix("--") {
                try take(long: argument, &cursor)
            } else {
                try take(short: argument, &cursor)
            }
        }
        return try finish()
    }

    /// A word: the name of a subcommand while one is expected, else a positional.
    private mutating func take(word: String, afterOptions: Bool) throws(UsageError) {
        if !afterOptions, words.isEmpty, !node.subcommands.isEmpty {
            if let next = node.subcommand(word) {
                path.append(word)
                node = next
                return
            }
            if node.positionals.isEmpty { throw error(Self.unknownCommand(word, in: node, group: path)) }
        }
        words.append(word)
    }

    /// `--name`, `--name value` or `--name=value`.
    private mutating func take(long argument: String, _ cursor: inout Cursor) throws(UsageError) {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        let option = try lookUp(name: name, typed: "--" + name)
        if case .flag = option.arity {
            guard inline == nil else { throw error("--\(name) takes no value") }
            try record(option, typed: "--" + name, value: nil)
            return
        }
        if let inline {
            try record(option, typed: "--" + name, value: inline)
        } else {
            try record(option, typed: "--" + name, value: try value(after: "--" + name, &cursor))
        }
    }

    /// `-l`, `-u NAME`, or flags run together as `-ly` (a value-taking letter goes last).
    private mutating func take(short argument: String, _ cursor: inout Cursor) throws(UsageError) {
        let letters = Array(argument.dropFirst())
        for (position, letter) in letters.enumerated() {
            if letter == "h" {
                wantsHelp = true
                continue
            }
            let option = try lookUp(short: letter)
            if case .flag = option.arity {
                try record(option, typed: "-\(letter)", value: nil)
            } else {
                guard position == letters.count - 1 else { throw error("-\(letter) needs a value, so it goes last in \(argument)") }
                try record(option, typed: "-\(letter)", value: try value(after: "-\(letter)", &cursor))
            }
        }
    }

    /// The word after an option that takes a value, whatever it looks like (`--title -x` is a title).
    private func value(after typed: String, _ cursor: inout Cursor) throws(UsageError) -> String {
        guard let value = cursor.next() else { throw error("\(typed) needs a value") }
        return value
    }

    /// The command line, read one word at a time.
    private struct Cursor {
        let arguments: [String]
        var index = 0

        mutating func next() -> String? {
            guard index < arguments.count else { return nil }
            defer { index += 1 }
            return arguments[index]
        }
    }

    /// Checks what was read against the command finally chosen and builds the result.
    private mutating func finish() throws(UsageError) -> ParsedCommand {
        if !path.isEmpty, !node.subcommands.isEmpty {
            throw error("missing a \(path.last ?? "") command (\(node.subcommands.map(\.name).joined(separator: ", ")))")
        }
        let scope = ParsedCommand.scope(of: path, in: root)
        for (typed, option) in order where !scope.contains(option) {
            throw notHere(typed, name: option.name)
        }
        if let missing = scope.first(where: { $0.required && given[$0.name] == nil }) {
            // A word beyond the required positionals is most likely the option's value typed
            // without its name: `notes export site` forgot `--html`.
            let requiredWords = node.positionals.filter { $0.count == .required || $0.count == .repeating(required: true) }.count
            let hint = words.count > requiredWords ? "; did you mean `--\(missing.name) \(words[0])`?" : ""
            throw error("missing \(missing.synopsis)" + hint)
        }
        return ParsedCommand(path: path, in: root, options: given, positionals: try assignPositionals())
    }

    /// Hands the words to the command's positionals in order: required ones first served, an
    /// optional one only when a word is left over for it, a repeating one takes the rest.
    private func assignPositionals() throws(UsageError) -> [String: [String]] {
        var assigned: [String: [String]] = [:]
        var remaining = words[...]
        let specs = node.positionals
        for (index, spec) in specs.enumerated() {
            let requiredAfter = specs[(index + 1)...].filter { $0.count == .required || $0.count == .repeating(required: true) }.count
            switch spec.count {
            case .required:
                guard let word = remaining.popFirst() else { throw error("missing \(spec.name)") }
                assigned[spec.name] = [word]
            case .optional:
                if remaining.count > requiredAfter, let word = remaining.popFirst() { assigned[spec.name] = [word] }
            case .repeating(let required):
                let taken = remaining.prefix(max(0, remaining.count - requiredAfter))
                if required, taken.isEmpty { throw error("missing \(spec.name)") }
                assigned[spec.name] = Array(taken)
                remaining = remaining.dropFirst(taken.count)
            }
            if let words = assigned[spec.name] {
                for word in words { try check(word, as: spec.kind, what: spec.name) }
            }
        }
        if let extra = remaining.first { throw error("unexpected argument '\(extra)'") }
        return assigned
    }

    private mutating func record(_ option: OptionSpec, typed: String, value: String?) throws(UsageError) {
        order.append((typed, option))
        guard let value else {
            given[option.name] = [""]
            return
        }
        try check(value, as: option.kind ?? .string, what: typed)
        switch option.arity {
        case .repeatable: given[option.name, default: []].append(value)
        default: given[option.name] = [value]
        }
    }

    /// Refuses a value that is not of its kind, saying what would be.
    private func check(_ value: String, as kind: ValueKind, what: String) throws(UsageError) {
        switch kind {
        case .int where Int(value) == nil:
            throw error("\(what) takes a whole number, not '\(value)'")
        case .duration where DurationValue.seconds(value) == nil:
            throw error("\(what) takes a duration such as \(DurationValue.examples), not '\(value)'")
        case .choice(let words) where !words.contains(value):
            throw error("\(what) is \(Self.list(words, or: true)), not '\(value)'" + Suggestion.clause(for: value, in: words))
        default:
            return
        }
    }

    /// The option called `name` for the command reached so far, or for a command below it
    /// (`notes token --json list`); the nearest declaration wins.
    private func lookUp(name: String, typed: String) throws(UsageError) -> OptionSpec {
        let candidates = ParsedCommand.scope(of: path, in: root) + Self.descendantOptions(of: node)
        if let option = candidates.first(where: { $0.name == name }) { return option }
        if !Self.commands(declaring: name, in: root, at: []).isEmpty { throw notHere(typed, name: name) }
        let names = Array(Set(candidates.map(\.name) + ["help"])).sorted()
        throw error("unknown option \(typed)" + Suggestion.clause(for: name, in: names, prefix: "--"))
    }

    /// "--json is not an option of `user add`; it goes with `user list`": an option typed
    /// where it does not belong, and the commands that take it.
    private func notHere(_ typed: String, name: String) -> UsageError {
        let owners = Self.commands(declaring: name, in: root, at: []).map { "`" + ([root.name] + $0).joined(separator: " ") + "`" }
        let here = ([root.name] + path).joined(separator: " ")
        return error("\(typed) is not an option of `\(here)`" + (owners.isEmpty ? "" : "; it goes with \(owners.joined(separator: ", "))"))
    }

    private func lookUp(short letter: Character) throws(UsageError) -> OptionSpec {
        let candidates = ParsedCommand.scope(of: path, in: root) + Self.descendantOptions(of: node)
        if let option = candidates.first(where: { $0.short == letter }) { return option }
        throw error("unknown option -\(letter)")
    }

    private func error(_ message: String) -> UsageError {
        UsageError(message, command: path)
    }

    private static func descendantOptions(of spec: CommandSpec) -> [OptionSpec] {
        spec.subcommands.flatMap { $0.options + descendantOptions(of: $0) }
    }

    private static func commands(declaring name: String, in spec: CommandSpec, at path: [String]) -> [[String]] {
        let here = spec.options.contains { $0.name == name } ? [path] : []
        return here + spec.subcommands.flatMap { commands(declaring: name, in: $0, at: path + [$0.name]) }
    }

    /// "unknown command 'synk'; did you mean `sync`?", or "unknown user command 'lst'; ..." below the top.
    static func unknownCommand(_ word: String, in spec: CommandSpec, group: [String]) -> String {
        let kind = group.last.map { "\($0) command" } ?? "command"
        return "unknown \(kind) '\(word)'" + Suggestion.clause(for: word, in: spec.subcommands.map(\.name))
    }

    /// "read or write", "mine, theirs or both".
    static func list(_ words: [String], or: Bool) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + words[words.count - 1]
    }
}
