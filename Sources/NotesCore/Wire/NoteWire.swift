/// An entry (a note or an attachment) as it travels on the wire: in `GET /v1/notes/{id}`, list
/// pages, the changes feed and batch results. `content` is present where the endpoint includes
/// it, and never for an attachment (its bytes are fetched by hash).
public struct NoteResource: Codable, Sendable, Equatable {
    public var id: NoteID
    public var path: String
    public var content: String?
    /// SHA-256 hex of the content's bytes (a note's UTF-8 text, an attachment's bytes).
    public var hash: String
    /// The per-user sequence number of the entry's latest change.
    public var rev: Int64
    public var size: Int
    public var createdAt: String
    public var updatedAt: String
    public var deleted: Bool
    /// Note or attachment. Servers from before attachments do not send it: absent means `note`.
    public var kind: EntryKind
    /// An attachment's media type from the fixed table (`MediaType.forPath`); absent for notes.
    public var mediaType: String?

    public init(id: NoteID, path: String, content: String?, hash: String, rev: Int64, size: Int,
                createdAt: String, updatedAt: String, deleted: Bool, kind: EntryKind = .note, mediaType: String? = nil) {
        self.id = id
        self.path = path
        self.content = content
        self.hash = hash
        self.rev = rev
        self.size = size
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deleted = deleted
        self.kind = kind
        self.mediaType = mediaType
    }
}

/// `PUT /v1/notes/{id}`: the note's path and content (create or update).
public struct PutNoteRequest: Codable, Sendable, Equatable {
    public var path: String
    public var content: String

    public init(path: String, content: String) {
        self.path = path
        self.content = content
    }
}

/// `GET /v1/notes`: one page of live notes ordered by path.
public struct NoteListPage: Codable, Sendable, Equatable {
    public var notes: [NoteResource]
    /// Pass as `after=` for the next page; absent on the last page.
    public var nextCursor: String?

    public init(notes: [NoteResource], nextCursor: String?) {
        self.notes = notes
        self.nextCursor = nextCursor
    }
}

/// `GET /v1/changes`: notes changed after a cursor, in rev order, each once at its latest state.
public struct ChangesPage: Codable, Sendable, Equatable {
    public var changes: [NoteResource]
    /// Opaque; pass as `since=` to continue after this page.
    public var cursor: String
    public var hasMore: Bool
    /// Whose notes these are (`user_id`), so a client checks the account it syncs a folder
    /// with at no extra request. Optional for servers from before it.
    public var userId: Int64?

    public init(changes: [NoteResource], cursor: String, hasMore: Bool, userId: Int64? = nil) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.userId = userId
    }
}

/// One entry of `GET /v1/notes/{id}/revisions`; `content` only when a single revision of a
/// note is asked for (an attachment revision carries its `hash`: fetch the bytes by it).
public struct RevisionResource: Codable, Sendable, Equatable {
    public var id: NoteID
    public var rev: Int64
    public var path: String
    public var hash: String
    public var size: Int
    public var deleted: Bool
    public var createdAt: String
    public var content: String?
    /// The device that made this revision (a session's device name, or `token:NAME` for a
    /// personal token); absent for revisions older than the server's recording of it.
    public var device: String?
    /// Note or attachment; absent (servers from before attachments) means `note`.
    public var kind: EntryKind
    /// An attachment revision's media type; absent for notes.
    public var mediaType: String?
    /// The username of the account that wrote this revision; absent from servers without spaces.
    public var author: String?

    public init(id: NoteID, rev: Int64, path: String, hash: String, size: Int, deleted: Bool, createdAt: String, content: String?,
                device: String? = nil, kind: EntryKind = .note, mediaType: String? = nil, author: String? = nil) {
        self.id = id
        self.rev = rev
        self.path = path
        self.hash = hash
        self.size = size
        self.deleted = deleted
        self.createdAt = createdAt
        self.content = content
        self.device = device
        self.kind = kind
        self.mediaType = mediaType
        self.author = author
    }
}

/// `GET /v1/notes/{id}/revisions`: newest first.
public struct RevisionList: Codable, Sendable, Equatable {
    public var revisions: [RevisionResource]

    public init(revisions: [RevisionResource]) {
        self.revisions = revisions
    }
}

/// `GET /v1/search`: matches ranked best first, each with a snippet around the hit.
public struct SearchResults: Codable, Sendable, Equatable {
    public struct Hit: Codable, Sendable, Equatable {
        public var id: NoteID
        public var path: String
        /// The snippet with matched words between `**`, for clients older than `text`; it
        /// cannot be told apart from Markdown bold in the note, so new clients draw `text`.
        public var snippet: String
        public var rev: Int64
        /// The snippet as plain text (`…` where it was cut).
        public var text: String
        /// The matched words in `text`, in order, as Unicode scalar offsets.
        public var highlights: [SearchHighlight]

        public init(id: NoteID, path: String, text: String, highlights: [SearchHighlight], rev: Int64) {
            self.id = id
            self.path = path
            self.text = text
            self.highlights = highlights
            self.snippet = SearchHighlight.marked(text, highlights, open: "**", close: "**")
            self.rev = rev
        }

        /// A hit from a server that sends only `snippet`: its `**` markers become highlights.
        public init(id: NoteID, path: String, snippet: String, rev: Int64) {
            let (text, highlights) = SearchHighlight.parse(snippet, open: "**", close: "**")
            self.init(id: id, path: path, text: text, highlights: highlights, rev: rev)
            self.snippet = snippet
        }

        private enum CodingKeys: String, CodingKey {
            case id, path, snippet, rev, text, highlights
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let id = try container.decode(NoteID.self, forKey: .id)
            let path = try container.decode(String.self, forKey: .path)
            let rev = try container.decode(Int64.self, forKey: .rev)
            let snippet = try container.decodeIfPresent(String.self, forKey: .snippet) ?? ""
            if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                let highlights = try container.decodeIfPresent([SearchHighlight].self, forKey: .highlights) ?? []
                self.init(id: id, path: path, text: text, highlights: highlights, rev: rev)
                self.snippet = snippet
            } else {
                self.init(id: id, path: path, snippet: snippet, rev: rev)
            }
        }
    }

    public var results: [Hit]

    public init(results: [Hit]) {
        self.results = results
    }
}

extension NoteResource: WireShapeDecodable {
    public static let wireShape = WireShape<NoteResource>(
        "Note",
        draft: NoteResource(id: NoteID(), path: "", content: nil, hash: "", rev: 0, size: 0, createdAt: "", updatedAt: "", deleted: false),
        fields: [
            .required("id", \.id),
            .required("path", \.path, ["description": "Relative, `/`-separated, NFC, ends in `.md`.", "example": "projects/plan.md"]),
            .optional("content", \.content,
                      ["nullable": true, "description": "The Markdown, byte-exact; only where the endpoint includes it."]),
            .required("hash", \.hash, ["pattern": "^[0-9a-f]{64}$", "description": "SHA-256 hex of the content's UTF-8 bytes."]),
            .required("rev", \.rev, ["description": "The per-user sequence number of the note's latest change."]),
            .required("size", \.size, ["description": "Content size in UTF-8 bytes."]),
            .required("created_at", \.createdAt, .dateTime),
            .required("updated_at", \.updatedAt, .dateTime),
            .required("deleted", \.deleted, ["description": "True for a tombstone."]),
            .defaulted("kind", \.kind, ["description": "Note or attachment (absent from servers before attachments: note)."]),
            .optional("media_type", \.mediaType,
                      ["description": "An attachment's media type, from the fixed table by extension; absent for notes."]),
        ])
}

extension PutNoteRequest: WireDescribed {
    public static let wireShape = WireShape<PutNoteRequest>("PutNoteRequest", fields: [
        .required("path", \.path, [
            "minLength": 4,
            "maxLength": 1024,
            "pattern": "^[^/.\\\\][^\\\\]*\\.md$",
            "description": """
                Relative and `/`-separated, at most 1024 UTF-8 bytes, ending in `.md`; no empty, `.`-leading \
                or over-255-byte segments, backslashes or control characters. A new path (a create or a \
                rename) may not hold the embedding, override and isolate controls U+202A–U+202E and \
                U+2066–U+2069; every other character is stored byte-exact (after NFC), zero-width space, \
                joiners, direction marks and spaces at the ends of a segment included.
                """,
        ]),
        .required("content", \.content, ["description": "The Markdown, at most `max_note_bytes` UTF-8 bytes."]),
    ])
}

extension NoteListPage: WireDescribed {
    public static let wireShape = WireShape<NoteListPage>("NoteListPage", fields: [
        .required("notes", \.notes, ["description": "Live notes ordered by path, without content."]),
        .optional("next_cursor", \.nextCursor,
                  ["nullable": true, "description": "Pass as `after` for the next page; absent on the last page."]),
    ])
}

extension ChangesPage: WireDescribed {
    public static let wireShape = WireShape<ChangesPage>(
        "ChangesPage", draft: ChangesPage(changes: [], cursor: "", hasMore: false),
        fields: [
            .required("changes", \.changes,
                      ["description": "In rev order, each note once at its latest state, tombstones included."]),
            .required("cursor", \.cursor, ["description": "Opaque; pass as `since` to continue."]),
            .required("has_more", \.hasMore),
            .optional("user_id", \.userId, [
                "description": """
                    Whose notes these are (the caller's user id; always sent by this server): a client checks the \
                    account a folder is bound to without another request.
                    """,
            ]),
        ])
}

extension RevisionResource: WireShapeDecodable {
    public static let wireShape = WireShape<RevisionResource>(
        "Revision",
        draft: RevisionResource(id: NoteID(), rev: 0, path: "", hash: "", size: 0, deleted: false, createdAt: "", content: nil),
        fields: [
            .required("id", \.id),
            .required("rev", \.rev),
            .required("path", \.path),
            .required("hash", \.hash),
            .required("size", \.size),
            .required("deleted", \.deleted),
            .required("created_at", \.createdAt, .dateTime),
            .optional("content", \.content, [
                "nullable": true,
                "description": "Only when one revision of a note is asked for: a merge base (never for attachments).",
            ]),
            .defaulted("kind", \.kind, ["description": "Note or attachment (absent from servers before attachments: note)."]),
            .optional("media_type", \.mediaType,
                      ["description": "An attachment's media type, from the fixed table by extension; absent for notes."]),
            .optional("device", \.device, [
                "description": """
                    The device that made this revision: the signed-in session's device name, or `token:NAME` for \
                    a personal token. Absent for revisions made before the server recorded it, or by a session \
                    that gave no device name.
                    """,
            ]),
            .optional("author", \.author, [
                "description": "The username of the account that wrote this revision (in a shared space, any of its members).",
            ]),
        ])
}

extension RevisionList: WireDescribed {
    public static let wireShape = WireShape<RevisionList>("RevisionList", fields: [
        .required("revisions", \.revisions, ["description": "Newest first, without content."]),
    ])
}

extension SearchResults.Hit: WireDescribed {
    public static let wireShape = WireShape<SearchResults.Hit>("SearchHit", fields: [
        .required("id", \.id),
        .required("path", \.path),
        .required("snippet", \.snippet, [
            "description": """
                For older clients: the text with matched words in `**` (indistinguishable from Markdown bold; \
                draw `text` and `highlights` instead).
                """,
        ]),
        .required("text", \.text, [
            "maxLength": 300,
            "description": """
                Plain text around the match, at most 300 characters (Unicode scalars) whatever the note's lines; \
                `…` where it was cut.
                """,
        ]),
        .required("highlights", \.highlights, ["description": "The matched words in `text`, in order, not overlapping."]),
        .required("rev", \.rev),
    ])
}

extension SearchResults: WireDescribed {
    public static let wireShape = WireShape<SearchResults>("SearchResults", fields: [
        .required("results", \.results, ["description": "Best match first."]),
    ])
}
