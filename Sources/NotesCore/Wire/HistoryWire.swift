/// One deleted note the server still keeps, in `GET /v1/trash`: what can be brought back and
/// until when.
public struct TrashEntry: Codable, Sendable, Equatable {
    public var id: NoteID
    /// The path the note had when it was deleted.
    public var path: String
    /// The deletion's revision (the tombstone's `rev`).
    public var rev: Int64
    /// The last revision with content: what a restore brings back by default.
    public var lastRev: Int64
    /// The size in bytes of that last content.
    public var size: Int
    public var deletedAt: String
    /// When the server drops the deletion, with every revision of the note (`--tombstone-ttl`);
    /// from then on it can no longer be restored.
    public var purgeAt: String
    /// Note or attachment; absent (servers from before the trash said it) means what the path
    /// names (`EntryKind(path:)`), which is what the server decided from it too.
    public var kind: EntryKind

    public init(id: NoteID, path: String, rev: Int64, lastRev: Int64, size: Int, deletedAt: String, purgeAt: String,
                kind: EntryKind? = nil) {
        self.id = id
        self.path = path
        self.rev = rev
        self.lastRev = lastRev
        self.size = size
        self.deletedAt = deletedAt
        self.purgeAt = purgeAt
        self.kind = kind ?? EntryKind(path: path)
    }

    enum CodingKeys: String, CodingKey {
        case id, path, rev, lastRev, size, deletedAt, purgeAt, kind
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(NoteID.self, forKey: .id), path: try container.decode(String.self, forKey: .path),
                  rev: try container.decode(Int64.self, forKey: .rev), lastRev: try container.decode(Int64.self, forKey: .lastRev),
                  size: try container.decode(Int.self, forKey: .size), deletedAt: try container.decode(String.self, forKey: .deletedAt),
                  purgeAt: try container.decode(String.self, forKey: .purgeAt),
                  kind: try container.decodeIfPresent(EntryKind.self, forKey: .kind))
    }
}

/// `GET /v1/trash`: deleted notes still kept, most recently deleted first.
public struct TrashPage: Codable, Sendable, Equatable {
    public var notes: [TrashEntry]
    /// Pass as `before=` for the next page; absent on the last page.
    public var nextCursor: String?

    public init(notes: [TrashEntry], nextCursor: String?) {
        self.notes = notes
        self.nextCursor = nextCursor
    }
}

/// `POST /v1/notes/{id}/purge`: what was removed for good.
public struct PurgeResult: Codable, Sendable, Equatable {
    public var id: NoteID
    public var path: String
    /// How many stored revisions were erased (0 when the note had already been purged).
    public var purgedRevisions: Int
    /// The deletion every folder syncs (a purged live note is deleted first), or the existing
    /// one for a note that was already deleted.
    public var rev: Int64

    public init(id: NoteID, path: String, purgedRevisions: Int, rev: Int64) {
        self.id = id
        self.path = path
        self.purgedRevisions = purgedRevisions
        self.rev = rev
    }
}

extension TrashEntry: WireDescribed {
    /// `kind` is listed as required: this server always sends it (a reader still takes its absence).
    public static let wireShape = WireShape<TrashEntry>("TrashEntry", fields: [
        .required("id", \.id),
        .required("path", \.path, ["description": "The path when deleted."]),
        .required("rev", \.rev, ["description": "The deletion's revision."]),
        .required("last_rev", \.lastRev,
                  ["description": "The last revision with content: what a restore brings back by default."]),
        .required("size", \.size, ["description": "Bytes of that content."]),
        .required("deleted_at", \.deletedAt, .dateTime),
        .required("purge_at", \.purgeAt, .merged(.dateTime, [
            "description": """
                From then on the server may drop the note with every revision (`--tombstone-ttl`).
                """,
        ])),
        .required("kind", \.kind, [
            "description": """
                Note or attachment (absent from servers before the trash said it: what the path names, \
                `.md`/`.markdown` in any case being a note).
                """,
        ]),
    ])
}

extension TrashPage: WireDescribed {
    public static let wireShape = WireShape<TrashPage>("TrashPage", fields: [
        .required("notes", \.notes),
        .optional("next_cursor", \.nextCursor,
                  ["nullable": true, "description": "Pass as `before` for the next page; absent on the last page."]),
    ])
}

extension PurgeResult: WireDescribed {
    public static let wireShape = WireShape<PurgeResult>("PurgeResult", fields: [
        .required("id", \.id),
        .required("path", \.path),
        .required("purged_revisions", \.purgedRevisions,
                  ["description": "Stored revisions erased (0 when it was already purged)."]),
        .required("rev", \.rev, ["description": "The deletion's revision, which every folder syncs."]),
    ])
}
