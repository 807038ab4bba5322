/// `POST /v1/batch`: many writes applied in one transaction, each with its own precondition.
public struct BatchRequest: Codable, Sendable, Equatable {
    public var operations: [BatchOperation]

    public init(operations: [BatchOperation]) {
        self.operations = operations
    }
}

/// One write in a batch: `put` (create with `if_none_match: "*"`, update with `if_match: rev`)
/// or `delete` (with `if_match`).
public struct BatchOperation: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case put, delete }

    public var op: Kind
    public var id: NoteID
    public var path: String?
    public var content: String?
    public var ifMatch: Int64?
    public var ifNoneMatch: String?

    public init(op: Kind, id: NoteID, path: String? = nil, content: String? = nil, ifMatch: Int64? = nil, ifNoneMatch: String? = nil) {
        self.op = op
        self.id = id
        self.path = path
        self.content = content
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
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

public struct BatchResponse: Codable, Sendable, Equatable {
    public var results: [BatchResult]

    public init(results: [BatchResult]) {
        self.results = results
    }
}
