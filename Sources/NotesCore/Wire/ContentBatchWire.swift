/// `POST /v1/content`: several small contents in one request body, each verified against its
/// hash and stored as if sent alone with `PUT /v1/content/{hash}`.
///
/// The body (`application/vnd.notes.content-batch`) is a run of frames, each a header line of
/// ASCII, `<hash> <size>\n` (64 lowercase hex digits, a space, the size in decimal), followed by
/// exactly `size` bytes of content. Nothing else: no separator after the bytes, no trailer. The
/// whole body is at most `ServerLimits.maxContentBatchBytes`, headers included.
public enum ContentBatch {
    public static let mediaType = "application/vnd.notes.content-batch"
    /// The most contents one body may hold: the server keeps a file open for each until the
    /// batch is stored.
    public static let maxContents = 256
    /// The longest header line: 64 hex digits, a space, 19 digits, the newline.
    public static let maxHeaderBytes = 64 + 1 + 19 + 1

    /// The header line that comes before a content's bytes.
    public static func header(hash: String, size: Int) -> [UInt8] {
        Array("\(hash) \(size)\n".utf8)
    }

    /// Parses a header line without its newline: the hash and size, or nil when malformed.
    public static func parseHeader(_ line: some Collection<UInt8>) -> (hash: String, size: Int)? {
        guard let space = line.firstIndex(of: 0x20) else { return nil }
        let hashBytes = line[..<space]
        let sizeBytes = line[line.index(after: space)...]
        let hash = String(decoding: hashBytes, as: UTF8.self)
        guard ContentHash.isValid(hash), !sizeBytes.isEmpty, sizeBytes.count <= 18,
              sizeBytes.allSatisfy({ (0x30...0x39).contains($0) }),
              let size = Int(String(decoding: sizeBytes, as: UTF8.self)) else { return nil }
        return (hash, size)
    }
}

/// The answer to `POST /v1/content`: one result per frame, in the order sent.
public struct ContentBatchResponse: Codable, Sendable, Equatable {
    public var contents: [ContentBatchResult]

    public init(contents: [ContentBatchResult]) {
        self.contents = contents
    }
}

/// What became of one content of a batch.
public struct ContentBatchResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Stored now (`PUT /v1/content/{hash}` would have answered 201).
        case created
        /// Stored already (200); held again, as a stored content is.
        case present
        /// Its bytes are not `size` bytes hashing to `hash`: nothing of them was stored (422).
        case contentMismatch = "content_mismatch"
    }

    public var hash: String
    public var size: Int
    public var status: Status

    public init(hash: String, size: Int, status: Status) {
        self.hash = hash
        self.size = size
        self.status = status
    }
}

extension ContentBatchResult.Status: WireJSONEnumeration {}

extension ContentBatchResponse: WireDescribed {
    public static let wireShape = WireShape<ContentBatchResponse>("ContentBatchResponse", fields: [.required("contents", \.contents)])
}

extension ContentBatchResult: WireDescribed {
    public static let wireShape = WireShape<ContentBatchResult>("ContentBatchResult", fields: [
        .required("hash", \.hash),
        .required("size", \.size),
        .required("status", \.status),
    ])
}
