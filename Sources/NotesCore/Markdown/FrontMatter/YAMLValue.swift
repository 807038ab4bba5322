/// A YAML value as front matter needs it: every scalar as its text (YAML 1.1's booleans,
/// numbers and dates are shown as written), sequences and mappings in document order.
public indirect enum YAMLValue: Sendable, Equatable {
    case scalar(String)
    case sequence([YAMLValue])
    case mapping([YAMLEntry])

    /// The value as one line of text: a scalar as is, a sequence's items joined by `, `, a
    /// mapping as `key: value` pairs joined by `; `.
    public var displayText: String {
        switch self {
        case .scalar(let text): text
        case .sequence(let items): items.map(\.displayText).joined(separator: ", ")
        case .mapping(let entries): entries.map { "\($0.key): \($0.value.displayText)" }.joined(separator: "; ")
        }
    }

    /// The strings this value lists: a sequence's scalars, or a scalar split at commas (and,
    /// with `splittingSpaces`, at spaces: `tags: a b`). Empty items are dropped.
    func strings(splittingSpaces: Bool) -> [String] {
        switch self {
        case .scalar(let text):
            let separators: Set<Character> = splittingSpaces ? [",", " ", "\t"] : [","]
            return text.split(whereSeparator: separators.contains).map { String($0).trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
        case .sequence(let items):
            return items.flatMap { item -> [String] in
                if case .scalar(let text) = item { return text.isEmpty ? [] : [text.trimmingASCIIWhitespace()] }
                return []
            }
        case .mapping:
            return []
        }
    }
}

/// One `key: value` pair of a YAML mapping.
public struct YAMLEntry: Sendable, Equatable {
    /// The key as text (a non-scalar key shows as its display text).
    public var key: String
    public var value: YAMLValue

    public init(key: String, value: YAMLValue) {
        self.key = key
        self.value = value
    }
}
