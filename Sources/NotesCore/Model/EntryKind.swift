/// What an entry of a notes folder is: a note (Markdown text, merged line by line, rendered and
/// searched) or an attachment (opaque bytes stored by hash, never merged).
///
/// Notes and attachments share one id space, one path namespace and one changes feed; the kind
/// follows from the path alone, so server and client can never disagree about it.
public enum EntryKind: String, Codable, Sendable, CaseIterable, Hashable {
    case note
    case attachment

    /// The kind a path names: `.md` or `.markdown` in any letter case is a note, anything else
    /// an attachment.
    public init(path: String) {
        self = Self.noteExtension(of: path) == nil ? .attachment : .note
    }

    /// The extensions (lowercased, without the dot) that make a file a note.
    public static let noteExtensions: Set<String> = ["md", "markdown"]

    /// The extension that makes `path` a note, with its dot and as written (`.md`, `.MD`,
    /// `.Markdown`), or nil when `path` names an attachment (a name that only starts with a dot
    /// has no extension).
    ///
    /// The one answer to "is this file a note" for server and client alike: the kind of an
    /// entry, `NotePath`'s rule for notes, export's pages and links, wiki links, titles and
    /// conflict copies all ask it, so no part can take a `.Markdown` file for an attachment.
    public static func noteExtension(of path: String) -> Substring? {
        if let answer = asciiNoteExtension(of: path) { return answer.isNote ? path[answer.dot...] : nil }
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return nil }
        return noteExtensions.contains(path[path.index(after: dot)...].lowercased()) ? path[dot...] : nil
    }

    /// `noteExtension(of:)` on the bytes of a file name that is all ASCII (where bytes are
    /// characters and lowercasing is bytewise), the common case that a scan of thousands of
    /// files asks for each file: `dot` is where the extension starts (the end when there is
    /// none). Nil for a name with other characters, which take the general path.
    private static func asciiNoteExtension(of path: String) -> (isNote: Bool, dot: String.Index)? {
        let bytes = path.utf8
        var index = bytes.endIndex
        var dot: String.Index?
        while index > bytes.startIndex {
            let previous = bytes.index(before: index)
            let byte = bytes[previous]
            if byte >= 0x80 { return nil }
            if byte == UInt8(ascii: "/") {
                // A character before the slash that is not ASCII may be a prepended mark that
                // makes one character of itself and the slash: the general path decides.
                if previous > bytes.startIndex && bytes[bytes.index(before: previous)] >= 0x80 { return nil }
                break
            }
            if byte == UInt8(ascii: "."), dot == nil { dot = previous }
            index = previous
        }
        // `index` is where the name starts; a name that only starts with a dot has no extension.
        guard let dot, dot != index else { return (false, bytes.endIndex) }
        let suffix = bytes[bytes.index(after: dot)...]
        let isNote = noteExtensionsBytes.contains { name in
            name.count == suffix.count && zip(name, suffix).allSatisfy { $0 == $1 | (($1 >= 0x41 && $1 <= 0x5A) ? 0x20 : 0) }
        }
        return (isNote, dot)
    }

    private static let noteExtensionsBytes: [[UInt8]] = noteExtensions.map { Array($0.utf8) }

    /// `path` without the extension that makes it a note (`a/b.Markdown` → `a/b`); `path` itself
    /// when it names an attachment.
    public static func droppingNoteExtension(_ path: String) -> String {
        guard let ext = noteExtension(of: path) else { return path }
        return String(path[..<ext.startIndex])
    }
}

extension NotePath {
    /// The kind of entry this path names (see `EntryKind(path:)`).
    public var kind: EntryKind { EntryKind(path: value) }

    /// The extension of the file name, lowercased and without the dot; empty when it has none
    /// (a name that only starts with a dot has none either, though such names are never valid).
    public var lowercasedExtension: String { MediaType.lowercasedExtension(of: value) }

    /// Validates `raw` as the path of a new entry of any kind: every path rule except the
    /// extension, then the new-path rules (see `forNewNote`).
    /// - Throws: `NotePathError` naming the rule, or the character and why it is refused.
    public static func forNewEntry(_ raw: String) throws(NotePathError) -> NotePath {
        let path = try NotePath(entry: raw)
        if let problem = path.newNoteProblem { throw problem }
        return path
    }
}
