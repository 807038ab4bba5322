import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The content store in an S3-compatible bucket (`--content-store s3://BUCKET/PREFIX`), with
/// either database: every server sees every content, and an upload begun on one server resumes
/// on another.
///
/// Objects, all under the prefix, one namespace per user as in the directory store:
/// - `<user>/<xx>/<hash>`: a content, named by its SHA-256 (`xx` its first two hex digits). It
///   is written only with bytes already checked against its name, before its `contents` row
///   commits, and never changes afterwards;
/// - `<user>/uploads/<hash>/<n>`: chunk `n` of an open upload, stored once its length and
///   digest were checked. The store checks each body once more against the SHA-256 its request
///   is signed with (`x-amz-content-sha256`).
///
/// `stage` reads an upload's chunks back in order, hashing them, and only when they hash to the
/// content's name joins them into the content object inside the store (a multipart upload of
/// copied parts: no byte passes through this server twice), so the object a `contents` row
/// names always holds the bytes that were checked. Bytes on their way in or out pass through
/// files with no name (`UnlinkedFile`), never whole in memory.
///
/// A store that cannot be reached, answers 5xx or is too slow fails with `BlobStoreError`
/// `isUnavailable`, which the content endpoints answer with 503 and `Retry-After`; nothing is
/// half-stored (an object appears whole or not at all), and the next request tries again.
struct S3BlobStore: BlobStore {
    let bucket: S3Bucket
    /// Where bytes wait on their way to and from the store (see `PostgresBlobStore.temporaryFolder`).
    let temporaryFolder: String

    init(bucket: S3Bucket, temporaryFolder: String = PostgresBlobStore.defaultTemporaryFolder()) {
        self.bucket = bucket
        self.temporaryFolder = temporaryFolder
    }

    /// The key of content `hash` of `userID`.
    func contentKey(userID: Int64, hash: String) -> String {
        bucket.location.key("\(userID)/\(hash.prefix(2))/\(hash)")
    }

    /// The key prefix of the chunks of the upload of `hash`, ending in `/`.
    func uploadPrefix(userID: Int64, hash: String) -> String {
        bucket.location.key("\(userID)/uploads/\(hash)/")
    }

    func chunkKey(userID: Int64, hash: String, index: Int) -> String {
        uploadPrefix(userID: userID, hash: hash) + String(index)
    }

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? {
        try Self.mapping("read stored content") { () throws(S3Error) in
            try bucket.get(contentKey(userID: userID, hash: hash), label: "read a content")
        }
    }

    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink {
        S3UploadSink(store: self, key: chunkKey(userID: userID, hash: upload.hash, index: index), removesWhenDiscarded: true,
                     file: try UnlinkedFile(in: temporaryFolder))
    }

    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink {
        S3UploadSink(store: self, key: contentKey(userID: userID, hash: hash), removesWhenDiscarded: false,
                     file: try UnlinkedFile(in: temporaryFolder))
    }

    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] {
        let prefix = uploadPrefix(userID: userID, hash: hash)
        return try Self.mapping("list the received chunks of an upload") { () throws(S3Error) in
            try bucket.list(prefix: prefix, label: "list an upload's chunks")
                .compactMap { Int($0.key.dropFirst(prefix.count)) }
                .sorted()
        }
    }

    /// The smallest part of a multipart upload but the last (S3's rule): uploads in smaller
    /// chunks are joined here instead, through a file, and stored with one request.
    static let minimumPartBytes = 5 * 1024 * 1024

    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent {
        let keys = (0..<upload.chunkCount).map { chunkKey(userID: userID, hash: upload.hash, index: $0) }
        let joinsHere = keys.count > 1 && upload.chunkSize < Self.minimumPartBytes
        let joined = joinsHere ? try UnlinkedFile(in: temporaryFolder) : nil
        defer { joined?.close() }
        var hasher = SHA256Hasher()
        var size = 0
        for key in keys {
            guard let file = try Self.mapping("read an upload chunk", { () throws(S3Error) in try bucket.get(key, label: "read an upload chunk") }) else {
                throw BlobStoreError(operation: "read a chunk of an upload: it is missing from the object store", code: ENOENT)
            }
            defer { file.close() }
            size += try Self.hash(file, into: &hasher, copyingTo: joined)
        }
        let digest = Hex.encode(hasher.finalize())
        if digest == upload.hash {
            let target = contentKey(userID: userID, hash: upload.hash)
            try Self.mapping("join an upload's chunks") { () throws(S3Error) in
                // A content object is only ever written with checked bytes: one already there is this content.
                guard try bucket.size(of: target, label: "look for a content") == nil else { return }
                if let joined {
                    try bucket.put(target, descriptor: joined.descriptor, size: joined.size, sha256: digest, label: "store a joined upload")
                } else {
                    try bucket.join(keys, into: target, label: "join an upload's chunks")
                }
            }
        }
        return S3StagedContent(hash: digest, size: size)
    }

    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) {
        try Self.mapping("remove an upload") { () throws(S3Error) in
            for object in try bucket.list(prefix: uploadPrefix(userID: userID, hash: hash), label: "list an upload's chunks") {
                try bucket.delete(object.key, label: "remove an upload chunk")
            }
        }
    }

    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) {
        try Self.mapping("remove stored content") { () throws(S3Error) in
            try bucket.delete(contentKey(userID: userID, hash: hash), label: "remove a content")
        }
    }

    /// Removes the chunks of uploads none of whose chunks was stored in the last `age` seconds
    /// (their `uploads` row, untouched as long, is purged too); returns how many went.
    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int {
        let cutoff = bucket.now().addingTimeInterval(-TimeInterval(age))
        return try Self.mapping("remove abandoned upload chunks") { () throws(S3Error) in
            let root = bucket.location.key("")
            var uploads: [String: [S3Bucket.Listed]] = [:]
            for object in try bucket.list(prefix: root, label: "list the store") {
                let parts = object.key.dropFirst(root.count).split(separator: "/")
                guard parts.count == 4, parts[1] == "uploads" else { continue }
                uploads["\(parts[0])/\(parts[2])", default: []].append(object)
            }
            var removed = 0
            for chunks in uploads.values where chunks.allSatisfy({ ($0.lastModified ?? .distantFuture) < cutoff }) {
                for chunk in chunks { try bucket.delete(chunk.key, label: "remove an abandoned upload chunk") }
                removed += chunks.count
            }
            return removed
        }
    }

    /// Runs `body` at once: a bucket is backed up by its own means (versioning, replication),
    /// never by a copy this server waits for.
    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? {
        try body()
    }

    /// Whether the store answers: a signed listing of at most one key under the prefix.
    func probe() throws(BlobStoreError) {
        try Self.mapping("reach the object store") { () throws(S3Error) in
            _ = try bucket.size(of: bucket.location.key(".probe"), label: "probe the store")
        }
    }

    // MARK: - Helpers

    /// Hashes the whole of `file` into `hasher` (appending it to `copy` too, when given);
    /// returns its size.
    static func hash(_ file: ContentFile, into hasher: inout SHA256Hasher, copyingTo copy: UnlinkedFile? = nil) throws(BlobStoreError) -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw BlobStoreError(operation: "read back an object", code: errno) }
            if got == 0 { return offset }
            let copied = buffer.withUnsafeBytes { bytes -> Bool in
                let piece = UnsafeRawBufferPointer(rebasing: bytes[..<got])
                hasher.update(piece)
                return copy?.append(piece) ?? true
            }
            guard copied else { throw BlobStoreError(operation: "join an upload's chunks in a temporary file", code: errno) }
            offset += got
        }
    }

    /// Runs `body`, reporting an S3 failure as a `BlobStoreError` naming `operation` and the
    /// store's reason; a store down, overloaded or slow as `isUnavailable`.
    @discardableResult
    static func mapping<T>(_ operation: String, _ body: () throws(S3Error) -> T) throws(BlobStoreError) -> T {
        do {
            return try body()
        } catch {
            throw BlobStoreError(operation: "\(operation) (\(error))", code: error.isUnavailable ? BlobStoreError.unavailableCode : EIO)
        }
    }
}
