import NotesCore

/// The answers of the attachment endpoints (`ATTACHMENTS-API.md`, the OpenAPI document).
extension HTTPError {
    /// 422 for a content hash that is not 64 lowercase hex characters.
    static let invalidHash = HTTPError(422, code: "invalid_hash", message: "A content hash is the SHA-256 of the bytes as 64 lowercase hex characters.")

    /// 404 for content this user's store does not hold (another user's contents look the same).
    static let contentNotFound = HTTPError.notFound("There is no content with this hash.")

    /// 507 when the disk under the content store is full: nothing of the upload was kept.
    static let contentStoreFull = HTTPError(507, code: "insufficient_storage",
                                            message: "The server has no room left to store this content; nothing was saved. Retry once its operator has freed space.")

    /// 413 for a content sent whole (`PUT /v1/content/{hash}`) that is larger than one chunk.
    static func chunkedUploadRequired(chunkBytes: Int) -> HTTPError {
        HTTPError(413, code: "chunked_upload_required",
                  message: "A content sent in one request may hold at most \(chunkBytes) bytes (upload_chunk_bytes in /v1/limits); "
                      + "send a larger one in chunks (POST /v1/uploads).")
    }

    /// 503 when another request is still sending the same upload chunk: once it finishes, the
    /// chunk is stored and sending it again is answered 204.
    static let chunkInProgress = HTTPError(503, code: "chunk_in_progress",
                                           message: "Another request is still sending this chunk; send it again shortly.",
                                           headers: ["Retry-After": "1"])

    /// 503 when the content store (an object store) cannot be reached, fails or is too slow:
    /// nothing of the request was kept; notes still sync, and the same request succeeds once the
    /// store is back.
    static let contentStoreUnavailable = HTTPError(503, code: "content_store_unavailable",
                                                   message: "The attachment store cannot be reached right now; nothing was saved. Retry shortly.",
                                                   headers: ["Retry-After": "5"])

    /// The answer for a failing content store: 507 when it is full, 503 when another request
    /// holds the chunk or the store cannot be reached, else nil (a logged 500).
    init?(blobStoreFailure error: BlobStoreError) {
        if error.isFull {
            self = .contentStoreFull
        } else if error.isBusy {
            self = .chunkInProgress
        } else if error.isUnavailable {
            self = .contentStoreUnavailable
        } else {
            return nil
        }
    }
}

extension ContentStoreError: HTTPAnswerable {
    var httpError: HTTPError {
        switch self {
        case .tooLarge(let limit, let size):
            HTTPError(413, code: "attachment_too_large",
                      message: "An attachment may hold at most \(limit) bytes (max_attachment_bytes in /v1/limits); this one has \(size).")
        case .quotaExceeded(let quota, let used, let size):
            HTTPError(507, code: "quota_exceeded",
                      message: "The owner of this space may store \(quota) bytes in all their spaces (quota_bytes in /v1/limits) and uses \(used); \(size) more do not fit. Nothing was stored.")
        case .uploadNotFound:
            HTTPError.notFound("There is no open upload of this content; start one with POST /v1/uploads.")
        case .chunkOutOfRange(let index, let count):
            HTTPError(422, code: "chunk_out_of_range", message: "Chunk \(index) does not exist: this upload has chunks 0 to \(count - 1).")
        case .chunkMismatch(let index, let expected, let received):
            HTTPError(422, code: "chunk_mismatch",
                      message: "Chunk \(index) was not stored: it must be \(expected) bytes whose SHA-256 matches Content-Digest (\(received) bytes came).")
        case .incompleteUpload(let missing):
            HTTPError(409, code: "upload_incomplete",
                      message: "Chunks still missing: \(missing.prefix(20).map(String.init).joined(separator: ", "))\(missing.count > 20 ? ", ..." : "").")
        case .contentMismatch:
            HTTPError(422, code: "content_mismatch",
                      message: "The uploaded bytes do not hash to this content's SHA-256; the upload was discarded.")
        case .contentMissing(let hash):
            HTTPError(409, code: "content_missing",
                      message: "The server holds no content \(hash) for this account: upload it (POST /v1/uploads) before the batch.")
        }
    }
}

extension RequestContext {
    /// The `kinds=` a client announces (see `EntryKindFilter`).
    func kindsQuery() throws(HTTPError) -> EntryKindFilter {
        do {
            return try EntryKindFilter(query: request.query["kinds"])
        } catch {
            throw HTTPError.badRequest("kinds takes note, attachment or both, separated by a comma.", code: "invalid_parameter")
        }
    }

    /// The content hash in the `:hash` path parameter.
    func contentHash() throws(HTTPError) -> String {
        guard let hash = parameters["hash"], ContentHash.isValid(hash) else { throw HTTPError.invalidHash }
        return hash
    }
}
