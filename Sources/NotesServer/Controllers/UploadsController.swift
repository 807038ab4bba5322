import NotesCore

/// `/v1/uploads`: resumable, verified, chunked upload of one content.
///
/// Open with the whole content's hash and size (checked against the limits before a byte is
/// stored), send chunks in any order, each with its SHA-256 in `Content-Digest`, then complete:
/// the server keeps the content only if its SHA-256 is the hash. A chunk body streams to its
/// place in the upload's staged content as it arrives, never held in memory, and a chunk once
/// received is never written again; an interrupted upload resumes from `received`.
///
/// A content no larger than a chunk can instead be sent whole in one request,
/// `PUT /v1/content/{hash}`: the same checks, one round trip instead of three, and the body
/// stored as the content itself as it streams in (hashed once, written once). Several such
/// contents go in one request with `POST /v1/content` (`ContentBatch`): what a folder of
/// small images costs is then a few requests and a few transactions, not one per file.
struct UploadsController: Sendable {
    let contents: ContentStore
    let blobs: any BlobStore

    func register(in router: inout Router) {
        router.add("POST", "/v1/uploads", access: .write) { try .now(open($0)) }
        router.add("GET", "/v1/uploads/:hash", access: .write) { try .now(state($0)) }
        router.addStreaming("PUT", "/v1/uploads/:hash/chunks/:index", access: .write, sink: { try chunkSink($0) }) { try .now(chunk($0)) }
        router.add("POST", "/v1/uploads/:hash/complete", access: .write) { try .now(complete($0)) }
        router.addStreaming("PUT", "/v1/content/:hash", access: .write, sink: { try wholeSink($0) }) { try .now(whole($0)) }
        router.addStreaming("POST", "/v1/content", access: .write, sink: { try batchSink($0) }) { try .now(batch($0)) }
    }

    /// Where a batch of contents goes, decided from the head: its announced length must fit
    /// `maxContentBatchBytes` (a chunk) and the caller's quota (taken as the most the contents
    /// could add) before any byte is read.
    private func batchSink(_ context: RequestContext) throws -> (sink: any RequestBodySink, maxBytes: Int) {
        let user = try context.caller().userID
        let length = try announcedLength(context)
        let limit = contents.limits.uploadChunkBytes
        guard length <= limit else {
            throw HTTPError(413, code: "batch_too_large", message: "A content batch is at most \(limit) bytes (max_content_batch_bytes).")
        }
        try ContentController.mappingStoreFailures { try contents.admitWhole(userID: user, hash: nil, size: length) }
        let blobs = self.blobs
        let sink = ContentBatchSink(maxContentBytes: min(limit, contents.limits.maxAttachmentBytes)) { hash throws(BlobStoreError) in
            try blobs.makeContentSink(userID: user, hash: hash)
        }
        return (sink, length)
    }

    /// Checks each content of a batch against its hash and stores those that match, all in one
    /// transaction after one flush of their bytes: one result per frame, in order. A content
    /// whose bytes do not match is reported and nothing of it kept; the others are stored all
    /// the same. Every content answered `created` or `present` is durable before the answer.
    private func batch(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        // An empty body (a batch of nothing) never opened a sink.
        guard let sink = context.request.bodySink as? ContentBatchSink else {
            return .wire(ContentBatchResponse(contents: []))
        }
        defer { sink.discard() }
        if let problem = sink.finish() { throw problem }
        var results: [ContentBatchResult] = []
        var sealed: [ContentStore.SealedContent] = []
        for content in sink.received {
            let matches = try ContentController.mappingStoreFailures { try contents.check(content.sink, hash: content.hash, size: content.size) }
            results.append(ContentBatchResult(hash: content.hash, size: content.size, status: matches ? .created : .contentMismatch))
            if matches { sealed.append(.init(sink: content.sink, hash: content.hash, size: content.size)) }
        }
        var created = try ContentController.mappingStoreFailures { try contents.keepWhole(sealed, userID: user) }[...]
        for index in results.indices where results[index].status == .created {
            if created.popFirst() == false { results[index].status = .present }
        }
        return .wire(ContentBatchResponse(contents: results))
    }

    /// Where a content sent whole goes, decided from the head: its announced length is checked
    /// against the limits and the quota, and must fit one chunk, before any byte is read.
    private func wholeSink(_ context: RequestContext) throws -> (sink: any RequestBodySink, maxBytes: Int) {
        let (user, hash, size) = try wholeAddress(context)
        return (try openWhole(userID: user, hash: hash, size: size), size)
    }

    private func whole(_ context: RequestContext) throws -> HTTPResponse {
        let (user, hash, size) = try wholeAddress(context)
        // An empty body (an empty content) never opened a sink, nor the upload.
        let sink = try (context.request.bodySink as? any ChunkSink) ?? openWhole(userID: user, hash: hash, size: size)
        defer { sink.discard() }
        let stored = try ContentController.mappingStoreFailures { try contents.storeWhole(sink, userID: user, hash: hash, size: size) }
        return .wire(stored.content, status: stored.created ? 201 : 200)
    }

    /// Checks a content sent whole against the limits and the quota, and makes the sink its
    /// body streams into (stored as the content itself: no upload, no chunk).
    private func openWhole(userID: Int64, hash: String, size: Int) throws -> any ChunkSink {
        let chunkBytes = contents.limits.uploadChunkBytes
        guard size <= chunkBytes || size > contents.limits.maxAttachmentBytes else {
            throw HTTPError.chunkedUploadRequired(chunkBytes: chunkBytes)
        }
        try ContentController.mappingStoreFailures { try contents.admitWhole(userID: userID, hash: hash, size: size) }
        return try ContentController.mappingStoreFailures { try blobs.makeContentSink(userID: userID, hash: hash) }
    }

    /// The caller, the hash and the body's announced length (required: the checks precede the body).
    private func wholeAddress(_ context: RequestContext) throws -> (user: Int64, hash: String, size: Int) {
        (try context.caller().userID, try context.contentHash(), try announcedLength(context))
    }

    /// The body's `Content-Length`: required, since the limits are checked before the body is read.
    private func announcedLength(_ context: RequestContext) throws -> Int {
        guard let raw = context.request.headers["Content-Length"], raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              raw.utf8.count <= 18, let size = Int(raw) else {
            throw HTTPError(411, code: "length_required", message: "Send the body's length as Content-Length.")
        }
        return size
    }

    private func open(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let request = try context.decode(UploadRequest.self)
        guard ContentHash.isValid(request.hash) else { throw HTTPError.invalidHash }
        guard request.size >= 0 else { throw HTTPError(422, code: "invalid_size", message: "size must be 0 or more bytes.") }
        let opened = try ContentController.mappingStoreFailures { try contents.openUpload(userID: user, hash: request.hash, size: request.size) }
        return .wire(opened.state, status: opened.created ? 201 : 200)
    }

    private func state(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        guard let state = try contents.upload(userID: user, hash: try context.contentHash()) else {
            throw ContentStoreError.uploadNotFound
        }
        return .wire(state)
    }

    /// Where a chunk's body goes, decided from the head: the upload must be open and the
    /// declared length exactly the chunk's (else 404/422 before any byte is read).
    private func chunkSink(_ context: RequestContext) throws -> (sink: any RequestBodySink, maxBytes: Int) {
        let (user, hash, index) = try chunkAddress(context)
        let (upload, length) = try contents.chunkTarget(userID: user, hash: hash, index: index)
        if let declared = context.request.headers["Content-Length"].flatMap({ Int($0) }), declared != length {
            throw ContentStoreError.chunkMismatch(index: index, expectedLength: length, receivedLength: declared)
        }
        let sink = try ContentController.mappingStoreFailures { try blobs.makeChunkSink(for: upload, userID: user, index: index) }
        return (sink, length)
    }

    private func chunk(_ context: RequestContext) throws -> HTTPResponse {
        let (user, hash, index) = try chunkAddress(context)
        guard let header = context.request.headers["Content-Digest"] else {
            context.request.bodySink?.discard()
            throw HTTPError(400, code: "digest_required", message: "Send the chunk's SHA-256 as Content-Digest: sha-256=:BASE64:.")
        }
        guard let digest = ContentDigest.sha256(fromHeader: header) else {
            context.request.bodySink?.discard()
            throw HTTPError(400, code: "invalid_digest", message: "Content-Digest must carry sha-256=:BASE64: (RFC 9530).")
        }
        // An empty body (the one chunk of an empty content) never opened a sink.
        let sink = try (context.request.bodySink as? any ChunkSink) ?? ContentController.mappingStoreFailures {
            try blobs.makeChunkSink(for: contents.chunkTarget(userID: user, hash: hash, index: index).upload, userID: user, index: index)
        }
        defer { sink.discard() }
        try ContentController.mappingStoreFailures {
            try contents.finishChunk(sink, userID: user, hash: hash, index: index, digest: digest)
        }
        return .noContent()
    }

    private func complete(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let stored = try ContentController.mappingStoreFailures { try contents.complete(userID: user, hash: try context.contentHash()) }
        return .wire(stored, status: 201)
    }

    private func chunkAddress(_ context: RequestContext) throws -> (user: Int64, hash: String, index: Int) {
        let user = try context.caller().userID
        let hash = try context.contentHash()
        guard let raw = context.parameters["index"], raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), raw.utf8.count <= 9,
              let index = Int(raw) else {
            throw HTTPError(422, code: "chunk_out_of_range", message: "The chunk index must be a whole number from 0.")
        }
        return (user, hash, index)
    }
}
