/// `GET /v1/notes/{id}/metadata`: what a note says about itself, as the server's flavour reads
/// it (its front matter and inline `#tags`), for clients that list or search notes by them.
public struct NoteMetadata: Codable, Sendable, Equatable {
    public var id: NoteID
    /// The revision this was read from.
    public var rev: Int64
    /// The front matter's `title`, else the first heading's text, else the file name without
    /// its extension: the title every page of the note shows.
    public var title: String
    /// Front matter `tags` and inline `#tags`, without `#`, each once, in order of first appearance.
    public var tags: [String]
    /// Front matter `aliases`: other names wiki links may use for the note.
    public var aliases: [String]

    public init(id: NoteID, rev: Int64, title: String, tags: [String], aliases: [String]) {
        self.id = id
        self.rev = rev
        self.title = title
        self.tags = tags
        self.aliases = aliases
    }
}

extension NoteMetadata: WireDescribed {
    public static let wireShape = WireShape<NoteMetadata>("NoteMetadata", fields: [
        .required("id", \.id),
        .required("rev", \.rev, ["description": "The revision the metadata was read from."]),
        .required("title", \.title,
                  ["description": "The front matter's `title`, else the first heading, else the file name without its extension."]),
        .required("tags", \.tags, ["description": "Front matter `tags` and inline `#tags`, without `#`, each once."]),
        .required("aliases", \.aliases, ["description": "Front matter `aliases`: other names wiki links may use."]),
    ])
}
