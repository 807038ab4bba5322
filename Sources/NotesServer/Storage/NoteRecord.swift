import NotesCore

/// An entry row (a note or an attachment) as the server stores it.
struct NoteRecord: Sendable {
    let id: NoteID
    let path: String
    let content: String?
    let hash: String
    let size: Int
    let rev: Int64
    let createdAt: Int64
    let updatedAt: Int64
    let deleted: Bool
    /// Note or attachment; an attachment's bytes are in the content store under `hash`.
    let kind: EntryKind
    /// An attachment's media type (`MediaType.forPath`); nil for notes.
    let mediaType: String?

    /// The wire form; `content` is included only when it was loaded, and never for an attachment.
    var resource: NoteResource {
        NoteResource(id: id, path: path, content: kind == .note ? content : nil, hash: hash, rev: rev, size: size,
                     createdAt: WireTime.string(fromMilliseconds: createdAt),
                     updatedAt: WireTime.string(fromMilliseconds: updatedAt), deleted: deleted,
                     kind: kind, mediaType: mediaType)
    }

    /// The same note without its content, for metadata answers.
    var withoutContent: NoteRecord {
        NoteRecord(id: id, path: path, content: nil, hash: hash, size: size, rev: rev,
                   createdAt: createdAt, updatedAt: updatedAt, deleted: deleted, kind: kind, mediaType: mediaType)
    }

    /// Columns to select, in the order `init(row:withContent:first:)` reads them.
    private static let columnNames = ["id", "path", "hash", "size", "rev", "created_at", "updated_at", "deleted", "kind", "media_type"]
    static let columns = columnNames.joined(separator: ", ")
    static let columnsWithContent = columns + ", content"

    init(id: NoteID, path: String, content: String?, hash: String, size: Int, rev: Int64, createdAt: Int64, updatedAt: Int64, deleted: Bool,
         kind: EntryKind = .note, mediaType: String? = nil) {
        self.id = id
        self.path = path
        self.content = content
        self.hash = hash
        self.size = size
        self.rev = rev
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deleted = deleted
        self.kind = kind
        self.mediaType = mediaType
    }

    /// Reads a row selected with `columns` (plus `content` last when `withContent`), starting at
    /// column `first` (a statement that selects other columns before them).
    init(row: any SQLRow, withContent: Bool, first: Int = 0) throws {
        let c = first
        guard let id = NoteID(row.string(c)) else { throw DatabaseError(code: 11, message: "a stored note id is not a UUID") }
        self.init(id: id, path: row.string(c + 1), content: withContent ? row.string(c + 10) : nil, hash: row.string(c + 2),
                  size: row.int(c + 3), rev: row.int64(c + 4), createdAt: row.int64(c + 5), updatedAt: row.int64(c + 6),
                  deleted: row.bool(c + 7), kind: EntryKind(rawValue: row.string(c + 8)) ?? .note,
                  mediaType: row.isNull(c + 9) ? nil : row.string(c + 9))
    }

    /// `columns` (or `columnsWithContent`) of the table aliased `alias`, for a join.
    static func columns(of alias: String, withContent: Bool) -> String {
        (columnNames + (withContent ? ["content"] : [])).map { "\(alias).\($0)" }.joined(separator: ", ")
    }
}

/// What a write requires of the note's current state (from `If-None-Match: *` or `If-Match`).
enum WritePrecondition: Sendable, Equatable {
    /// Create: no live note with this id may exist (a retried identical create is fine).
    case absent
    /// Change: the note must be at exactly this revision.
    case revision(Int64)
}

/// A write whose precondition failed, carrying the note's current state so the client can merge.
struct StaleNoteError: Error, Sendable {
    let current: NoteRecord?
    let message: String
}
