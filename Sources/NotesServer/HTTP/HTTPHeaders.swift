/// Case-insensitive header collection, preserving insertion order.
///
/// Header names are compared ASCII-case-insensitively (RFC 9110 §5.1) without allocating, because
/// lookups sit on every request's hot path. Repeated names are kept as separate entries so that
/// headers such as `Set-Cookie` survive; the subscript reads the first and replaces all.
struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    /// One header line as sent or to be sent.
    typealias Element = (name: String, value: String)

    private var entries: [Element] = []

    /// Creates an empty collection.
    init() {}

    /// Creates a collection from literal pairs, in the order written.
    init(dictionaryLiteral elements: (String, String)...) {
        entries = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The number of header lines, counting repeated names separately.
    var count: Int { entries.count }

    /// Whether no header is present.
    var isEmpty: Bool { entries.isEmpty }

    /// The first value for `name`; setting replaces every line with that name (nil removes them).
    ///
    /// A replacement keeps the position of the first existing line so the output order stays stable.
    subscript(name: String) -> String? {
        get { entries.first { Self.namesMatch($0.name, name) }?.value }
        set {
            guard let first = entries.firstIndex(where: { Self.namesMatch($0.name, name) }) else {
                if let newValue { entries.append((name: name, value: newValue)) }
                return
            }
            if let newValue {
                entries[first] = (name: name, value: newValue)
                entries.removeSubrange(entries.index(after: first)...) { Self.namesMatch($0.name, name) }
            } else {
                entries.removeAll { Self.namesMatch($0.name, name) }
            }
        }
    }

    /// Appends a line, keeping any existing lines with the same name.
    mutating func add(name: String, value: String) {
        entries.append((name: name, value: value))
    }

    /// Every value sent under `name`, in order.
    func values(for name: String) -> [String] {
        entries.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// How many lines carry `name` (without collecting their values).
    func count(of name: String) -> Int {
        entries.count { Self.namesMatch($0.name, name) }
    }

    /// Whether at least one line carries `name`.
    func contains(_ name: String) -> Bool {
        entries.contains { Self.namesMatch($0.name, name) }
    }

    func makeIterator() -> IndexingIterator<[Element]> {
        entries.makeIterator()
    }

    static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        return zip(lhs.entries, rhs.entries).allSatisfy {
            namesMatch($0.name, $1.name) && $0.value == $1.value
        }
    }

    /// ASCII case-insensitive comparison; header names are tokens, so ASCII folding is exact.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        // Most names compared differ in length: answered without walking either.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (l?, r?):
                if l != r && asciiLower(l) != asciiLower(r) { return false }
            default:
                return false
            }
        }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

private extension Array {
    /// Removes the elements in `range` that match `shouldRemove`, keeping the others in order.
    mutating func removeSubrange(_ range: PartialRangeFrom<Int>, where shouldRemove: (Element) -> Bool) {
        let kept = self[range].filter { !shouldRemove($0) }
        replaceSubrange(range, with: kept)
    }
}
