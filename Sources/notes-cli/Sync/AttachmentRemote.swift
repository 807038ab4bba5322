import Foundation
import NotesCore

/// The server's attachment limits as sync applies them: the published ones, else the
/// documented defaults (`--max-attachment-size` 256 MiB, chunks of 8 MiB).
struct AttachmentLimits: Sendable, Equatable {
    static let defaultMaxBytes: Int64 = 256 << 20
    static let defaultChunkBytes = 8 << 20
    /// The largest chunk the client holds in memory, whatever a server asks for.
    static let maxChunkBytes = 64 << 20
    /// The largest batch of small contents this client sends, whatever the server takes: four
    /// batches are in flight and the transport holds copies of each body, so 8 MiB batches
    /// peaked at ~140 MiB on 1,000 images; 2 MiB still makes a request per ten images or so.
    static let maxBatchBytes = 2 << 20

    /// The largest attachment the server takes.
    var maxBytes: Int64
    /// The size of every upload chunk but the last, and of each range `notes cat` and export read.
    var chunkBytes: Int
    /// The largest body of `POST /v1/content` (several small contents in one request); nil: a
    /// server without it, so each goes alone.
    var batchBytes: Int?

    init(_ limits: ServerLimits) {
        maxBytes = Int64(limits.maxAttachmentBytes ?? Int(Self.defaultMaxBytes))
        // A server asking for absurd chunks is held to a bounded buffer either way.
        chunkBytes = min(max(limits.uploadChunkBytes ?? Self.defaultChunkBytes, 64 << 10), Self.maxChunkBytes)
        batchBytes = limits.maxContentBatchBytes.flatMap { $0 >= 64 << 10 ? min($0, Self.maxBatchBytes) : nil }
    }
}

/// Attachment content on the server: which contents it lacks, the resumable chunked upload,
/// and ranged downloads by hash (see ATTACHMENTS-API / the OpenAPI document).
///
/// Requirements of `SyncRemote` with defaults that refuse, so a remote wrapping another for a
/// test of notes alone need not forward them.
extension SyncRemote {
    func limits() async -> ServerLimits {
        var limits = ResponseBudget.defaultLimits
        limits.maxNoteBytes = await noteLimit()
        return limits
    }

    func missingContent(_ hashes: [String]) async throws -> [String] { throw AttachmentRemoteError.unsupported }
    func putContent(hash: String, bytes: [UInt8]) async throws -> Bool { throw AttachmentRemoteError.unsupported }
    func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]? { nil }
    func openUpload(hash: String, size: Int64) async throws -> UploadState { throw AttachmentRemoteError.unsupported }
    func putChunk(hash: String, index: Int, body: FileBody, digest: [UInt8]) async throws { throw AttachmentRemoteError.unsupported }
    func completeUpload(hash: String) async throws { throw AttachmentRemoteError.unsupported }
    func content(hash: String, offset: Int64, length: Int, total: Int64) async throws -> Data { throw AttachmentRemoteError.unsupported }
    func content(hash: String, offset: Int64, length: Int64, total: Int64, into sink: any ResponseBodySink) async throws {
        throw AttachmentRemoteError.unsupported
    }
}

enum AttachmentRemoteError: Error, CustomStringConvertible {
    case unsupported

    var description: String { "this remote does not carry attachments" }
}

extension APISyncRemote {
    func limits() async -> ServerLimits {
        await client.fetchLimits()
    }

    /// `POST /v1/content/missing`, in requests of at most 1,000 hashes: those the server lacks.
    func missingContent(_ hashes: [String]) async throws -> [String] {
        var missing: [String] = []
        var start = 0
        while start < hashes.count {
            let slice = Array(hashes[start..<min(start + ContentMissingRequest.maxHashes, hashes.count)])
            // Asking again changes nothing but the hold's expiry: safe to retry.
            let request = try APIRequest.json("POST", "/v1/content/missing", ContentMissingRequest(hashes: slice), idempotent: true)
            let answer = try await client.json(ContentMissingResponse.self, request)
            let asked = Set(slice)
            missing += answer.missing.filter { asked.contains($0) }
            start += slice.count
        }
        return missing
    }

    /// `PUT /v1/content/{hash}`: sends a content no larger than a chunk whole, in one request
    /// (the server checks it against the hash before storing it). Retried like any `PUT`: a
    /// second copy of the same bytes finds the first stored.
    /// - Returns: true once the server holds the content; false when it has no such endpoint
    ///   (a server from before it: 404 or 405) or wants it in chunks after all (413
    ///   `chunked_upload_required`, its chunks smaller than it published), so the caller falls
    ///   back to the chunked upload. Throws `ClientError.status` 413 (too large), 422 (the bytes
    ///   do not hash to `hash`) or 507 (quota) as the chunked upload would.
    func putContent(hash: String, bytes: [UInt8]) async throws -> Bool {
        var request = APIRequest("PUT", "/v1/content/\(hash)", body: Data(bytes))
        request.headers["Content-Type"] = "application/octet-stream"
        do {
            _ = try await client.send(request)
            return true
        } catch ClientError.status(let error) where [404, 405].contains(error.status) || error.code == "chunked_upload_required" {
            return false
        }
    }

    /// `POST /v1/content`: several small contents in one request, framed as `ContentBatch` says
    /// (`body`, whose frames carry `hashes` in order). Safe to send again: stored contents are
    /// found stored.
    /// - Returns: one result per frame, in order; nil when the server has no such endpoint (404
    ///   or 405), so the caller sends each content alone. Throws `ClientError.status` 413 or 507
    ///   (nothing of the batch stored) as the one-content requests would.
    func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]? {
        var request = APIRequest("POST", "/v1/content", body: body, idempotent: true)
        request.headers["Content-Type"] = ContentBatch.mediaType
        let answer: ContentBatchResponse
        do {
            answer = try await client.json(ContentBatchResponse.self, request)
        } catch ClientError.status(let error) where [404, 405].contains(error.status) {
            return nil
        }
        guard answer.contents.map(\.hash) == hashes else {
            throw ClientError.protocolViolation("the server answered a batch of \(hashes.count) contents with results for others")
        }
        return answer.contents
    }

    /// `POST /v1/uploads`: opens (or finds) the upload of one content and says which chunks the
    /// server already stored. Throws `ClientError.status` 413 (too large) or 507 (quota).
    func openUpload(hash: String, size: Int64) async throws -> UploadState {
        let request = try APIRequest.json("POST", "/v1/uploads", UploadRequest(hash: hash, size: Int(size)), idempotent: true)
        let state = try await client.json(UploadState.self, request)
        // A content no larger than a chunk is sent whole from memory: a server asking for chunks
        // past the bound is refused.
        guard state.hash == hash, Int64(state.size) == size, state.chunkSize > 0, state.chunkSize <= AttachmentLimits.maxChunkBytes,
              state.received.allSatisfy({ $0 >= 0 && $0 < state.chunkCount }) else {
            throw ClientError.protocolViolation("the server answered the upload of \(hash) with another upload's state")
        }
        return state
    }

    /// `PUT /v1/uploads/{hash}/chunks/{index}` with the chunk's SHA-256 `digest` as its RFC 9530
    /// `Content-Digest` (the server refuses a chunk whose bytes do not match it). The bytes are
    /// read from `body`'s file as they are sent.
    func putChunk(hash: String, index: Int, body: FileBody, digest: [UInt8]) async throws {
        var request = APIRequest("PUT", "/v1/uploads/\(hash)/chunks/\(index)")
        request.bodyFile = body
        request.headers["Content-Type"] = "application/octet-stream"
        request.headers["Content-Digest"] = ContentDigest.header(sha256: digest)
        _ = try await client.send(request)
    }

    /// `POST /v1/uploads/{hash}/complete`: the server checks the whole content against its hash.
    func completeUpload(hash: String) async throws {
        let request = APIRequest("POST", "/v1/uploads/\(hash)/complete", idempotent: true)
        _ = try await client.send(request)
    }

    /// `GET /v1/content/{hash}` for `length` bytes at `offset` of a content of `total` bytes:
    /// the whole when it is one range, else a `Range` request. The answer is bounded to the
    /// range, so a server cannot make the client hold more than one chunk.
    func content(hash: String, offset: Int64, length: Int, total: Int64) async throws -> Data {
        var request = APIRequest("GET", "/v1/content/\(hash)")
        request.accept = "application/octet-stream"
        request.maxResponseBytes = length + 1
        let whole = offset == 0 && Int64(length) == total
        if !whole { request.headers["Range"] = "bytes=\(offset)-\(offset + Int64(length) - 1)" }
        let response = try await client.send(request)
        guard response.body.count == length, whole || response.status == 206 else {
            throw ClientError.protocolViolation("the server answered \(length) bytes at \(offset) of content \(hash) with "
                                                + "\(response.body.count) bytes (HTTP \(response.status))")
        }
        return response.body
    }

    /// `GET /v1/content/{hash}` for `length` bytes at `offset`, streamed into `sink` (which
    /// checks where the answer starts and how much it brings): a `Range` request unless it is
    /// the whole content. An error answer is buffered as usual, within a small bound.
    func content(hash: String, offset: Int64, length: Int64, total: Int64, into sink: any ResponseBodySink) async throws {
        var request = APIRequest("GET", "/v1/content/\(hash)")
        request.accept = "application/octet-stream"
        request.maxResponseBytes = Int(clamping: max(length, Int64(ResponseBudget.smallMaxBytes)))
        request.bodySink = sink
        if offset > 0 || length < total { request.headers["Range"] = "bytes=\(offset)-\(offset + length - 1)" }
        _ = try await client.send(request)
    }
}
