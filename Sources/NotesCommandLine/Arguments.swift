/// The imperative parser the commands used before `CommandSpec`: each command takes the flags,
/// options and positionals it knows, then `finish()` rejects anything left over.
///
/// Accepts `--name value`, `--name=value`, and `--` to end options.
public struct Arguments: Sendable {
    private var remaining: [String]

    public init(_ arguments: [String]) {
        remaining = arguments
    }

    /// Whether nothing is left to parse.
    public var isEmpty: Bool { remaining.isEmpty }

    /// Removes `name` (such as `--json`) if present and tells whether it was.
    public mutating func flag(_ name: String, short: String? = nil) -> Bool {
        let end = optionsEnd
        guard let index = remaining[..<end].firstIndex(where: { $0 == name || (short != nil && $0 == short) }) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Removes `name value` or `name=value` and returns the value; the last one wins if repeated.
    public mutating func option(_ name: String, short: String? = nil) throws(UsageError) -> String? {
        var value: String?
        while true {
            let end = optionsEnd
            guard let index = remaining[..<end].firstIndex(where: {
                $0 == name || $0.hasPrefix(name + "=") || (short != nil && $0 == short)
            }) else { return value }
            let argument = remaining.remove(at: index)
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix(name + "=") {
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard index < remaining.count, remaining[index] != "--" else {
                    throw .usage("\(name) needs a value")
                }
                value = remaining.remove(at: index)
            }
        }
    }

    /// Removes every `name value` (or `name=value`) and returns the values in order, for
    /// options that may be given several times.
    public mutating func repeatedOption(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        while true {
            let end = optionsEnd
            guard let index = remaining[..<end].firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) else { return values }
            let argument = remaining.remove(at: index)
            if argument.hasPrefix(name + "=") {
                values.append(String(argument.dropFirst(name.count + 1)))
            } else {
                guard index < remaining.count, remaining[index] != "--" else { throw .usage("\(name) needs a value") }
                values.append(remaining.remove(at: index))
            }
        }
    }

    /// Like `option`, but parses a whole number.
    public mutating func intOption(_ name: String) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let number = Int(text) else { throw .usage("\(name) takes a whole number, not '\(text)'") }
        return number
    }

    /// Removes and returns the next positional argument (not starting with `-`, or after `--`).
    public mutating func positional() -> String? {
        let end = optionsEnd
        if let index = remaining[..<end].firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) {
            return remaining.remove(at: index)
        }
        if end < remaining.count {  // after "--"
            guard end + 1 < remaining.count else { return nil }
            return remaining.remove(at: end + 1)
        }
        return nil
    }

    /// Like `positional`, but a usage error when missing.
    public mutating func requiredPositional(_ what: String) throws(UsageError) -> String {
        guard let value = positional() else { throw .usage("missing \(what)") }
        return value
    }

    /// Fails with a usage error naming the first argument nobody took.
    public func finish() throws(UsageError) {
        let leftovers = remaining.filter { $0 != "--" }
        guard let first = leftovers.first else { return }
        throw .usage(first.hasPrefix("-") ? "unknown option \(first)" : "unexpected argument '\(first)'")
    }

    private var optionsEnd: Int { remaining.firstIndex(of: "--") ?? remaining.count }
}
