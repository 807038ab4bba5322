import CYAML

/// Reads one YAML document with libyaml's event parser, within bounds: the only owner of a
/// `yaml_parser_t`, deleted in `deinit`.
///
/// Front matter is untrusted input, so the parser bounds nesting depth and the number of
/// nodes, counting each alias as the nodes it repeats (a "billion laughs" of aliases stops at
/// the bound instead of expanding).
final class YAMLParser {
    /// How deep sequences and mappings may nest.
    static let maximumDepth = 32
    /// How many nodes (scalars, sequences, mappings, alias copies included) a document may hold.
    static let maximumNodes = 10_000

    private var parser = yaml_parser_t()
    private let bytes: [UInt8]
    private var nodes = 0
    private var anchors: [String: (value: YAMLValue, nodes: Int)] = [:]

    /// A parser of `yaml`'s UTF-8 bytes.
    init(_ yaml: [UInt8]) throws(YAMLError) {
        bytes = yaml
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(message: "out of memory", line: nil) }
    }

    deinit {
        yaml_parser_delete(&parser)
    }

    /// The document's root value; nil for an empty document.
    func parse() throws(YAMLError) -> YAMLValue? {
        try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> YAMLValue? in
            // libyaml reads the bytes during `parse` only: the buffer outlives every call below.
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var root: YAMLValue?
            var documents = 0
            while true {
                var event = try nextEvent()
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return root
                case YAML_DOCUMENT_START_EVENT:
                    documents += 1
                    guard documents == 1 else { throw YAMLError(message: "more than one document", line: Int(event.start_mark.line) + 1) }
                case YAML_STREAM_START_EVENT, YAML_DOCUMENT_END_EVENT:
                    continue
                default:
                    root = try value(startingWith: &event, depth: 0)
                }
            }
        }
    }

    private func nextEvent() throws(YAMLError) -> yaml_event_t {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "not valid YAML"
            throw YAMLError(message: problem, line: Int(parser.problem_mark.line) + 1)
        }
        return event
    }

    /// The value that `event` (a scalar, alias or the start of a collection) begins, reading
    /// the rest of a collection's events.
    private func value(startingWith event: inout yaml_event_t, depth: Int) throws(YAMLError) -> YAMLValue {
        let line = Int(event.start_mark.line) + 1
        guard depth < Self.maximumDepth else { throw YAMLError(message: "nested more than \(Self.maximumDepth) levels deep", line: line) }
        let nodesBefore = nodes
        try count(1, line: line)
        let anchor: UnsafeMutablePointer<yaml_char_t>?
        let value: YAMLValue
        switch event.type {
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor)
            guard let anchored = anchors[name] else { throw YAMLError(message: "unknown alias *\(name)", line: line) }
            try count(anchored.nodes, line: line)
            return anchored.value
        case YAML_SCALAR_EVENT:
            anchor = event.data.scalar.anchor
            value = .scalar(String(decoding: UnsafeBufferPointer(start: event.data.scalar.value, count: event.data.scalar.length), as: UTF8.self))
        case YAML_SEQUENCE_START_EVENT:
            anchor = event.data.sequence_start.anchor
            var items: [YAMLValue] = []
            while true {
                var next = try nextEvent()
                defer { yaml_event_delete(&next) }
                if next.type == YAML_SEQUENCE_END_EVENT { break }
                items.append(try self.value(startingWith: &next, depth: depth + 1))
            }
            value = .sequence(items)
        case YAML_MAPPING_START_EVENT:
            anchor = event.data.mapping_start.anchor
            var entries: [YAMLEntry] = []
            while true {
                var keyEvent = try nextEvent()
                defer { yaml_event_delete(&keyEvent) }
                if keyEvent.type == YAML_MAPPING_END_EVENT { break }
                let key = try self.value(startingWith: &keyEvent, depth: depth + 1)
                var valueEvent = try nextEvent()
                defer { yaml_event_delete(&valueEvent) }
                entries.append(YAMLEntry(key: key.displayText, value: try self.value(startingWith: &valueEvent, depth: depth + 1)))
            }
            value = .mapping(entries)
        default:
            throw YAMLError(message: "unexpected event", line: line)
        }
        if let anchor { anchors[Self.string(anchor)] = (value, nodes - nodesBefore) }
        return value
    }

    private func count(_ added: Int, line: Int) throws(YAMLError) {
        nodes += added
        guard nodes <= Self.maximumNodes else { throw YAMLError(message: "more than \(Self.maximumNodes) values", line: line) }
    }

    private static func string(_ text: UnsafeMutablePointer<yaml_char_t>?) -> String {
        guard let text else { return "" }
        return text.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
    }
}

@available(*, unavailable)
extension YAMLParser: Sendable {}

/// Why front matter is not valid YAML: libyaml's problem and the line it was found on (1-based,
/// counted from the line after the opening `---`).
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int?

    public var description: String {
        line.map { "line \($0): \(message)" } ?? message
    }
}
