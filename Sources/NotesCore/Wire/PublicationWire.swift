/// `POST /v1/notes/{id}/publication`: publish the note by an unguessable link.
public struct CreatePublicationRequest: Codable, Sendable, Equatable {
    /// Lifetime in seconds; absent for a link that works until it is revoked.
    public var expiresIn: Int?
    /// Whether search engines may index the page; absent means no (`noindex`).
    public var indexable: Bool?

    public init(expiresIn: Int? = nil, indexable: Bool? = nil) {
        self.expiresIn = expiresIn
        self.indexable = indexable
    }
}

/// A published note. `url` and `token` only in the answer that created the publication: the
/// server keeps only a digest of the token, so the link cannot be shown again.
public struct PublicationResource: Codable, Sendable, Equatable {
    public var noteId: NoteID
    /// The note's current path (the page follows the note through renames).
    public var path: String
    public var createdAt: String
    public var expiresAt: String?
    public var indexable: Bool
    /// `/p/<token>`, relative to the server's address.
    public var url: String?
    public var token: String?

    public init(noteId: NoteID, path: String, createdAt: String, expiresAt: String?, indexable: Bool,
                url: String? = nil, token: String? = nil) {
        self.noteId = noteId
        self.path = path
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.indexable = indexable
        self.url = url
        self.token = token
    }
}

/// `GET /v1/publications`: the caller's live publications, newest first, without their links.
public struct PublicationList: Codable, Sendable, Equatable {
    public var publications: [PublicationResource]

    public init(publications: [PublicationResource]) {
        self.publications = publications
    }
}
