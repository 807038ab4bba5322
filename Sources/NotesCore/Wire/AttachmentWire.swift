import Foundation

/// `POST /v1/content/missing`: which of these contents (SHA-256 hex) does the server lack?
/// At most `ContentMissingRequest.maxHashes` per request.
public struct ContentMissingRequest: Codable, Sendable, Equatable {
    public var hashes: [String]

    /// The most hashes one request may ask about.
    public static let maxHashes = 1000

    public init(hashes: [String]) {
        self.hashes = hashes
    }
}

/// The answer to `POST /v1/content/missing`: the asked hashes the user's store lacks, in the
/// order asked. Every other asked hash is present and *held* for a while (see the API
/// document), so the batch that relies on it can commit before a purge could remove it.
public struct ContentMissingResponse: Codable, Sendable, Equatable {
    public var missing: [String]

    public init(missing: [String]) {
        self.missing = missing
    }
}

/// `POST /v1/uploads`: open (or find) the upload of one content.
public struct UploadRequest: Codable, Sendable, Equatable {
    /// SHA-256 hex of the whole content.
    public var hash: String
    /// Its size in bytes.
    public var size: Int

    public init(hash: String, size: Int) {
        self.hash = hash
        self.size = size
    }
}

/// An upload's progress (`POST /v1/uploads`, `GET /v1/uploads/{hash}`): the chunk size the
/// server expects and the chunk indices it already stored, so an interrupted upload resumes
/// by sending only the rest.
public struct UploadState: Codable, Sendable, Equatable {
    public var hash: String
    public var size: Int
    /// Every chunk but the last is exactly this many bytes.
    public var chunkSize: Int
    /// Indices of the chunks already stored, ascending.
    public var received: [Int]

    public init(hash: String, size: Int, chunkSize: Int, received: [Int]) {
        self.hash = hash
        self.size = size
        self.chunkSize = chunkSize
        self.received = received
    }

    /// How many chunks the content has (an empty content has one empty chunk).
    public var chunkCount: Int { UploadState.chunkCount(size: size, chunkSize: chunkSize) }

    /// How many chunks a content of `size` bytes has in chunks of `chunkSize`: at least one.
    public static func chunkCount(size: Int, chunkSize: Int) -> Int {
        precondition(chunkSize > 0, "chunk size must be positive")
        return max(1, (size + chunkSize - 1) / chunkSize)
    }
}

/// `POST /v1/uploads/{hash}/complete`: the content is stored and may be referred to by a batch.
public struct StoredContent: Codable, Sendable, Equatable {
    public var hash: String
    public var size: Int

    public init(hash: String, size: Int) {
        self.hash = hash
        self.size = size
    }
}

/// Content hashes as the API takes them: 64 lowercase hexadecimal characters (SHA-256).
public enum ContentHash {
    /// Whether `text` is a well-formed content hash.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// The `Content-Digest` header of RFC 9530 for SHA-256, as each upload chunk carries it:
/// `sha-256=:<base64 of the 32-byte digest>:`.
public enum ContentDigest {
    /// The header value for a SHA-256 digest.
    public static func header(sha256 digest: [UInt8]) -> String {
        "sha-256=:" + Data(digest).base64EncodedString() + ":"
    }

    /// The SHA-256 digest a header value carries, or nil when it has none (other algorithms
    /// are skipped; a malformed value gives nil).
    public static func sha256(fromHeader value: String) -> [UInt8]? {
        for member in value.split(separator: ",") {
            let trimmed = member.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].lowercased() == "sha-256" else { continue }
            let item = trimmed[trimmed.index(after: equals)...]
            guard item.count >= 2, item.first == ":", item.last == ":" else { return nil }
            guard let bytes = Data(base64Encoded: String(item.dropFirst().dropLast())), bytes.count == 32 else { return nil }
            return Array(bytes)
        }
        return nil
    }
}

extension ContentMissingRequest: WireDescribed {
    public static let wireShape = WireShape<ContentMissingRequest>("ContentMissingRequest", draft: ContentMissingRequest(hashes: []), fields: [
        .required("hashes", \.hashes, [
            "maxItems": .integer(Int64(maxHashes)),
            "items": .merged(String.openAPISchema, .contentHash),
            "description": "SHA-256 hex of each content asked about.",
        ]),
    ])
}

extension ContentMissingResponse: WireDescribed {
    public static let wireShape = WireShape<ContentMissingResponse>("ContentMissingResponse", draft: ContentMissingResponse(missing: []), fields: [
        .required("missing", \.missing, ["description": "The asked hashes the store lacks."]),
    ])
}

extension UploadRequest: WireDescribed {
    public static let wireShape = WireShape<UploadRequest>("UploadRequest", fields: [
        .required("hash", \.hash, .merged(.contentHash, ["description": "SHA-256 hex of the whole content."])),
        .required("size", \.size, ["minimum": 0, "description": "Its size in bytes, at most `max_attachment_bytes`."]),
    ])
}

extension UploadState: WireDescribed {
    public static let wireShape = WireShape<UploadState>("UploadState", fields: [
        .required("hash", \.hash),
        .required("size", \.size),
        .required("chunk_size", \.chunkSize, ["description": "Every chunk but the last has exactly this many bytes."]),
        .required("received", \.received, ["description": "Indices of the chunks stored so far, ascending."]),
    ])
}

extension StoredContent: WireDescribed {
    public static let wireShape = WireShape<StoredContent>("StoredContent", fields: [
        .required("hash", \.hash),
        .required("size", \.size),
    ])
}
