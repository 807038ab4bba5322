/// `POST /v1/batch`: many writes applied in one transaction, each with its own precondition.
public struct BatchRequest: Codable, Sendable, Equatable {
    public var operations: [BatchOperation]

    public init(operations: [BatchOperation]) {
        self.operations = operations
    }
}

/// One write in a batch: `put` (create with `if_none_match: "*"`, update with `if_match: rev`)
/// or `delete` (with `if_match`). A `put` of an attachment carries `kind: "attachment"` and the
/// `hash` of content the server already holds (uploaded, or reported present by
/// `POST /v1/content/missing`) instead of `content`.
public struct BatchOperation: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case put, delete }

    public var op: Kind
    public var id: NoteID
    public var path: String?
    public var content: String?
    public var ifMatch: Int64?
    public var ifNoneMatch: String?
    /// Which kind of entry a `put` writes; absent means `note` (what clients before
    /// attachments send).
    public var kind: EntryKind
    /// An attachment `put`'s content hash (SHA-256 hex).
    public var hash: String?

    public init(op: Kind, id: NoteID, path: String? = nil, content: String? = nil, ifMatch: Int64? = nil, ifNoneMatch: String? = nil,
                kind: EntryKind = .note, hash: String? = nil) {
        self.op = op
        self.id = id
        self.path = path
        self.content = content
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.kind = kind
        self.hash = hash
    }

    /// Encodes `kind` only for attachments, so a note operation's bytes stay what servers from
    /// before attachments expect (they would ignore it anyway).
    public func encode(to encoder: any Encoder) throws {
        try Self.wireShape.encode(self, to: encoder)
    }
}

/// The outcome of one batch operation, in request order: the HTTP status it would have had
/// alone, and the resulting note or the error.
public struct BatchResult: Codable, Sendable, Equatable {
    public var id: NoteID
    public var status: Int
    public var note: NoteResource?
    public var error: APIErrorBody.Detail?

    public init(id: NoteID, status: Int, note: NoteResource? = nil, error: APIErrorBody.Detail? = nil) {
        self.id = id
        self.status = status
        self.note = note
        self.error = error
    }
}

/// The answer to `POST /v1/batch`: one result per operation, and where the account's changes
/// feed stood around the batch's writes.
///
/// `cursorBefore` and `cursorAfter` are changes-feed cursors (the wire form of a page's
/// `cursor`): the feed just before the batch's first write and just after its last. Every
/// change between them is this batch's own, so a client that had seen the feed up to
/// `cursorBefore` has, with these results, seen it up to `cursorAfter` without reading it
/// back. Both are absent when the batch wrote nothing, and from servers before them.
public struct BatchResponse: Codable, Sendable, Equatable {
    public var results: [BatchResult]
    public var cursorBefore: String?
    public var cursorAfter: String?

    public init(results: [BatchResult], cursorBefore: String? = nil, cursorAfter: String? = nil) {
        self.results = results
        self.cursorBefore = cursorBefore
        self.cursorAfter = cursorAfter
    }

    /// The feed span the batch's writes took, when the answer gives both ends.
    public var feedSpan: (before: String, after: String)? {
        guard let cursorBefore, let cursorAfter else { return nil }
        return (cursorBefore, cursorAfter)
    }
}

extension BatchOperation.Kind: WireJSONEnumeration {}

extension BatchRequest: WireDescribed {
    public static let wireShape = WireShape<BatchRequest>("BatchRequest", draft: BatchRequest(operations: []), fields: [
        .required("operations", \.operations, ["description": "At most `max_batch_operations`."]),
    ])
}

extension BatchOperation: WireShapeDecodable {
    public static let wireShape = WireShape<BatchOperation>("BatchOperation", draft: BatchOperation(op: .put, id: NoteID()), fields: [
        .required("op", \.op),
        .required("id", \.id),
        .optional("path", \.path, ["nullable": true, "description": "Required for put."]),
        .optional("content", \.content, ["nullable": true, "description": "Required for put."]),
        .optional("if_match", \.ifMatch, ["nullable": true, "description": "The revision the write is based on (update, delete)."]),
        .optional("if_none_match", \.ifNoneMatch, ["enum": ["*"], "nullable": true, "description": "`*` to create."]),
        .defaulted("kind", \.kind, omittedAt: .note,
                   ["description": "What a put writes (default note). An attachment put carries `hash`, not `content`."]),
        .optional("hash", \.hash, [
            "nullable": true,
            "description": """
                An attachment put: the SHA-256 of content the caller's store holds (uploaded, or reported present \
                by `/v1/content/missing`); else `409 content_missing`.
                """,
        ]),
    ])
}

extension BatchResult: WireDescribed {
    public static let wireShape = WireShape<BatchResult>("BatchResult", draft: BatchResult(id: NoteID(), status: 0), fields: [
        .required("id", \.id),
        .required("status", \.status, [
            "description": "The HTTP status the operation would have had alone (200, 201, 400, 404, 409, 412, 413, 428).",
        ]),
        .optional("note", \.note, ["nullable": true, "description": "The note after the write, or its current state for a 412."]),
        .optional("error", \.error, ["nullable": true]),
    ])
}

extension BatchResponse: WireDescribed {
    public static let wireShape = WireShape<BatchResponse>("BatchResponse", draft: BatchResponse(results: []), fields: [
        .required("results", \.results, ["description": "One per operation, in request order."]),
        .optional("cursor_before", \.cursorBefore, [
            "description": """
                The changes-feed cursor (as a page's `cursor`) just before this batch's first write. Absent when \
                the batch wrote nothing, and from servers before it.
                """,
        ]),
        .optional("cursor_after", \.cursorAfter, [
            "description": """
                The changes-feed cursor just after this batch's last write: every change between `cursor_before` \
                and it is one of this batch's results, so a client whose cursor was `cursor_before` may move to \
                it without reading those changes back. Present exactly when `cursor_before` is.
                """,
        ]),
    ])
}
