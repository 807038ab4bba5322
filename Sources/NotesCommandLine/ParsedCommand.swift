import Synchronization

/// A command line parsed against a `CommandSpec` tree: which command it chose and the values
/// of its options and positionals, already checked against their kinds.
///
/// Read by name, as declared: `parsed.flag("json")`, `parsed.value("server")`,
/// `parsed.duration("expires-in")`, `parsed.positional("PATH")`. Reading a name the command
/// does not declare (or as another arity) is a programmer error and stops the program; the
/// test that walks every command finds it first, together with declared names nobody reads.
public struct ParsedCommand: Sendable {
    /// The words that chose the command, after the program name: `["token", "create"]`.
    public let path: [String]
    /// The chosen command.
    public let spec: CommandSpec
    /// The options the command takes: its own and those its groups pass down.
    public let options: [OptionSpec]
    private let given: [String: [String]]
    private let words: [String: [String]]
    private let reads = ReadLog()

    /// A parse result for the command at `path` below `root`, with option values by name and
    /// positionals by name. The parser checks values before it builds one; tests build one to
    /// call a command's reading code directly.
    public init(path: [String], in root: CommandSpec, options given: [String: [String]] = [:],
                positionals: [String: [String]] = [:]) {
        guard let spec = root.descendant(path) else { preconditionFailure("no command \(path) in \(root.name)") }
        self.path = path
        self.spec = spec
        self.options = Self.scope(of: path, in: root)
        self.given = given
        self.words = positionals
    }

    /// The options the command at `path` takes: its own, then the inherited ones of each group
    /// above it, nearest first.
    static func scope(of path: [String], in root: CommandSpec) -> [OptionSpec] {
        var groups = [root]
        for name in path { if let next = groups.last?.subcommand(name) { groups.append(next) } }
        let leaf = groups.removeLast()
        return leaf.options + groups.reversed().flatMap { $0.options.filter(\.inherited) }
    }

    /// Whether the flag `name` was given.
    public func flag(_ name: String) -> Bool {
        _ = declared(name, as: "a flag") { $0 == .flag }
        return given[name] != nil
    }

    /// The value of option `name`: the last one given, else its declared default, else nil.
    public func value(_ name: String) -> String? {
        let option = declared(name, as: "a one-value option") { if case .value = $0 { true } else { false } }
        if let last = given[name]?.last { return last }
        if case .value(_, _, let defaultValue) = option.arity { return defaultValue }
        return nil
    }

    /// Every value of the repeatable option `name`, in the order given.
    public func values(_ name: String) -> [String] {
        _ = declared(name, as: "a repeatable option") { if case .repeatable = $0 { true } else { false } }
        return given[name] ?? []
    }

    /// The whole-number option `name` (checked when parsed).
    public func int(_ name: String) -> Int? {
        precondition(declaredKind(name) == .int, "--\(name) is not declared as a whole number")
        return value(name).flatMap { Int($0) }
    }

    /// The duration option `name` in seconds (checked when parsed; see `DurationValue`).
    public func duration(_ name: String) -> Int? {
        precondition(declaredKind(name) == .duration, "--\(name) is not declared as a duration")
        return value(name).flatMap(DurationValue.seconds)
    }

    /// The word given for the positional `name`, nil when an optional one was left out.
    public func positional(_ name: String) -> String? {
        let spec = declaredPositional(name)
        precondition(!isRepeating(spec), "\(name) is repeating: read it with positionals(_:)")
        return words[name]?.first
    }

    /// The word given for the required positional `name`, which the parser made sure of.
    public func argument(_ name: String) -> String {
        let spec = declaredPositional(name)
        precondition(spec.count == .required, "\(name) is not required: read it with positional(_:)")
        return words[name]?.first ?? ""
    }

    /// The words given for the repeating positional `name`, in order.
    public func positionals(_ name: String) -> [String] {
        let spec = declaredPositional(name)
        precondition(isRepeating(spec), "\(name) takes one word: read it with positional(_:)")
        return words[name] ?? []
    }

    /// The option and positional names read so far, for the test that checks each declared
    /// name is read by its command.
    public var namesRead: Set<String> { reads.names }

    /// Every option and positional name the command declares.
    public var namesDeclared: Set<String> { Set(options.map(\.name) + spec.positionals.map(\.name)) }

    private func declared(_ name: String, as what: String, _ matches: (OptionSpec.Arity) -> Bool) -> OptionSpec {
        guard let option = options.first(where: { $0.name == name }) else {
            preconditionFailure("`\(path.joined(separator: " "))` reads --\(name), which it does not declare")
        }
        precondition(matches(option.arity), "--\(name) of `\(path.joined(separator: " "))` is not \(what)")
        reads.insert(name)
        return option
    }

    private func declaredKind(_ name: String) -> ValueKind? {
        options.first { $0.name == name }?.kind
    }

    private func declaredPositional(_ name: String) -> PositionalSpec {
        guard let spec = spec.positionals.first(where: { $0.name == name }) else {
            preconditionFailure("`\(path.joined(separator: " "))` reads the positional \(name), which it does not declare")
        }
        reads.insert(name)
        return spec
    }

    private func isRepeating(_ spec: PositionalSpec) -> Bool {
        if case .repeating = spec.count { return true }
        return false
    }
}

/// The names a `ParsedCommand` was asked for; shared by its copies.
private final class ReadLog: Sendable {
    private let state = Mutex<Set<String>>([])

    func insert(_ name: String) { state.withLock { _ = $0.insert(name) } }

    var names: Set<String> { state.withLock { $0 } }
}
