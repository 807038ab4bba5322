/// `POST /v1/notes/{id}/publication`: publish the note by an unguessable link.
public struct CreatePublicationRequest: Codable, Sendable, Equatable {
    /// Lifetime in seconds; absent for a link that works until it is revoked.
    public var expiresIn: Int?
    /// Whether search engines may index the page; absent means no (`noindex`).
    public var indexable: Bool?

    /// The longest lifetime a link may be given: ten years.
    public static let maxLifetimeSeconds = 10 * 365 * 86_400

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

extension CreatePublicationRequest: WireDescribed {
    public static let wireShape = WireShape<CreatePublicationRequest>("CreatePublicationRequest", fields: [
        .optional("expires_in", \.expiresIn, [
            "minimum": 1,
            "maximum": .integer(Int64(maxLifetimeSeconds)),
            "description": "Seconds until the link stops working; leave out for a link that lasts until revoked.",
        ]),
        .optional("indexable", \.indexable, ["description": "Let search engines index the page (default false: `noindex`)."]),
    ])
}

extension PublicationResource: WireDescribed {
    public static let wireShape = WireShape<PublicationResource>("Publication", fields: [
        .required("note_id", \.noteId),
        .required("path", \.path, ["description": "The note's current path."]),
        .required("created_at", \.createdAt, .dateTime),
        .optional("expires_at", \.expiresAt, .merged(.dateTime, ["nullable": true])),
        .required("indexable", \.indexable),
        .optional("url", \.url, [
            "nullable": true,
            "description": "`/p/<token>`, relative to this server; only in the answer that published the note.",
        ]),
        .optional("token", \.token, [
            "nullable": true,
            "description": "The link's secret (43 base64url characters); only in the answer that published the note.",
        ]),
    ])
}

extension PublicationList: WireDescribed {
    public static let wireShape = WireShape<PublicationList>("PublicationList", fields: [.required("publications", \.publications)])
}
