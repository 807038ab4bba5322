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

    enum CodingKeys: String, CodingKey {
        case id, path, content, hash, rev, size, createdAt, updatedAt, deleted, kind, mediaType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(NoteID.self, forKey: .id), path: try container.decode(String.self, forKey: .path),
                  content: try container.decodeIfPresent(String.self, forKey: .content),
                  hash: try container.decode(String.self, forKey: .hash), rev: try container.decode(Int64.self, forKey: .rev),
                  size: try container.decode(Int.self, forKey: .size), createdAt: try container.decode(String.self, forKey: .createdAt),
                  updatedAt: try container.decode(String.self, forKey: .updatedAt), deleted: try container.decode(Bool.self, forKey: .deleted),
                  kind: try container.decodeIfPresent(EntryKind.self, forKey: .kind) ?? .note,
                  mediaType: try container.decodeIfPresent(String.self, forKey: .mediaType))
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

    public init(id: NoteID, rev: Int64, path: String, hash: String, size: Int, deleted: Bool, createdAt: String, content: String?,
                device: String? = nil, kind: EntryKind = .note, mediaType: String? = nil) {
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
    }

    enum CodingKeys: String, CodingKey {
        case id, rev, path, hash, size, deleted, createdAt, content, device, kind, mediaType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(NoteID.self, forKey: .id), rev: try container.decode(Int64.self, forKey: .rev),
                  path: try container.decode(String.self, forKey: .path), hash: try container.decode(String.self, forKey: .hash),
                  size: try container.decode(Int.self, forKey: .size), deleted: try container.decode(Bool.self, forKey: .deleted),
                  createdAt: try container.decode(String.self, forKey: .createdAt),
                  content: try container.decodeIfPresent(String.self, forKey: .content),
                  device: try container.decodeIfPresent(String.self, forKey: .device),
                  kind: try container.decodeIfPresent(EntryKind.self, forKey: .kind) ?? .note,
                  mediaType: try container.decodeIfPresent(String.self, forKey: .mediaType))
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
