/// The YAML block that opens a note (`---` … `---` or `...`), as Obsidian, Jekyll and Hugo
/// read it: never rendered as Markdown.
public struct FrontMatter: Sendable, Equatable {
    /// The YAML between the fences, as written.
    public var source: String
    /// The `title` key, when it is text.
    public var title: String?
    /// The `aliases` key (or `alias`): other names wiki links may use for this note.
    public var aliases: [String]
    /// The `tags` key (or `tag`), without a leading `#`.
    public var tags: [String]
    /// Every other key, in document order, for the properties block.
    public var properties: [YAMLEntry]
    /// Why the YAML could not be read; the block then shows as code, and nothing above is set.
    public var error: YAMLError?

    /// Where in the note the YAML could not be read (1-based, the opening `---` being line 1):
    /// the line of the problem, else the opening fence's; nil when it was read.
    public var errorLine: Int? {
        error.map { ($0.line ?? 0) + 1 }
    }

    /// The largest front matter read as YAML; a longer block shows as code.
    public static let maximumBytes = 64 * 1024

    public init(source: String, title: String? = nil, aliases: [String] = [], tags: [String] = [],
                properties: [YAMLEntry] = [], error: YAMLError? = nil) {
        self.source = source
        self.title = title
        self.aliases = aliases
        self.tags = tags
        self.properties = properties
        self.error = error
    }

    /// Reads `yaml` (the text between the fences) within the parser's bounds.
    public init(yaml: String) {
        self.init(source: yaml)
        guard yaml.utf8.count <= Self.maximumBytes else {
            error = YAMLError(message: "front matter longer than \(Self.maximumBytes / 1024) KiB", line: nil)
            return
        }
        let root: YAMLValue?
        do {
            root = try YAMLParser(Array(yaml.utf8)).parse()
        } catch {
            self.error = error
            return
        }
        switch root {
        case nil, .scalar("")?:
            return
        case .mapping(let entries)?:
            for entry in entries {
                switch entry.key.lowercased() {
                case "title" where title == nil:
                    if case .scalar(let text) = entry.value, !text.isEmpty { title = text } else { properties.append(entry) }
                case "aliases", "alias":
                    aliases += entry.value.strings(splittingSpaces: false)
                case "tags", "tag":
                    tags += entry.value.strings(splittingSpaces: true).map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
                default:
                    properties.append(entry)
                }
            }
        case let other?:
            error = YAMLError(message: "front matter must be a mapping of keys to values, not \(other.kindName)", line: 1)
        }
    }

    /// Splits a note's UTF-8 bytes into its front matter and the Markdown after it, when the
    /// first line is `---` and a later line is `---` or `...` (trailing spaces allowed, CRLF
    /// too); otherwise nil, and the note is Markdown from its first byte.
    public static func split(_ note: UnsafeBufferPointer<UInt8>) -> (yaml: String, bodyStart: Int)? {
        guard let first = Self.line(in: note, from: 0), Self.isFence(note[first.content], closing: false) else { return nil }
        var start = first.next
        while let line = Self.line(in: note, from: start) {
            if Self.isFence(note[line.content], closing: true) {
                return (String(decoding: note[first.next..<start], as: UTF8.self), line.next)
            }
            guard line.next > start else { break }
            start = line.next
        }
        return nil
    }

    /// The line starting at `start`: its content without the line ending, and where the next begins.
    private static func line(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (content: Range<Int>, next: Int)? {
        guard start < bytes.count else { return nil }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        let next = end < bytes.count ? end + 1 : end
        var contentEnd = end
        if contentEnd > start, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
        return (start..<contentEnd, next)
    }

    private static func isFence(_ line: Slice<UnsafeBufferPointer<UInt8>>, closing: Bool) -> Bool {
        let trimmed = line.reversed().drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }).reversed()
        return trimmed.elementsEqual("---".utf8) || (closing && trimmed.elementsEqual("...".utf8))
    }
}

extension YAMLValue {
    /// What the value is, in words, for an error message.
    var kindName: String {
        switch self {
        case .scalar: "a single value"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}
