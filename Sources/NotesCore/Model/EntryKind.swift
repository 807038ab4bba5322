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
        self = Self.isMarkdownName(path) ? .note : .attachment
    }

    /// The extensions (lowercased, without the dot) that make a file a note.
    public static let noteExtensions: Set<String> = ["md", "markdown"]

    private static func isMarkdownName(_ path: String) -> Bool {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return noteExtensions.contains(name[name.index(after: dot)...].lowercased())
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
