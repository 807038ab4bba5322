import Foundation
import NotesCore

/// The server side sync needs, and nothing more: the changes feed, batched writes, and old
/// revisions as merge bases.
protocol SyncRemote: Sendable {
    /// `GET /v1/changes`: notes changed after `since` (`nil`: from the beginning).
    /// - Throws: `SyncRemoteError.resyncRequired` for a cursor older than the kept tombstones.
    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage
    /// `POST /v1/batch`: the result of each operation, in order, and the span of the changes
    /// feed the batch's writes took when the server says (`OwnWriteChain`; without one, the push
    /// is read back from the feed, as from a server before the span).
    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse
    /// `batch(operations)`, each operation already written as it is sent (`written[i]` is
    /// `operations[i].wireJSON()`), so the body is put together rather than written a second
    /// time. The default sends `batch(operations)`.
    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse
    /// `GET /v1/notes/{id}/revisions/{rev}` with content; `nil` when it no longer exists.
    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource?
    /// The largest note the server takes, in bytes: its published limit (`GET /v1/limits`), or
    /// the documented default when it publishes none or cannot be asked.
    func noteLimit() async -> Int

    // Attachments (`AttachmentRemote.swift`); the defaults there refuse, so a remote wrapping
    // another for a test of notes alone need not forward them.
    /// `GET /v1/limits` as published, else the defaults.
    func limits() async -> ServerLimits
    /// `POST /v1/content/missing`: which of `hashes` the server lacks.
    func missingContent(_ hashes: [String]) async throws -> [String]
    /// `PUT /v1/content/{hash}`: one content no larger than a chunk, whole; false when the
    /// server predates it (the chunked upload then does the work).
    func putContent(hash: String, bytes: [UInt8]) async throws -> Bool
    /// `POST /v1/content`: several small contents in one framed body (`ContentBatch`); one
    /// result per frame, or nil when the server predates it (each is then sent alone).
    func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]?
    /// `POST /v1/uploads`: opens the upload of one content; which chunks the server has.
    func openUpload(hash: String, size: Int64) async throws -> UploadState
    /// `PUT /v1/uploads/{hash}/chunks/{index}`, with the chunk's SHA-256 `digest`, its bytes
    /// sent from the file as they go out.
    func putChunk(hash: String, index: Int, body: FileBody, digest: [UInt8]) async throws
    /// `POST /v1/uploads/{hash}/complete`.
    func completeUpload(hash: String) async throws
    /// `GET /v1/content/{hash}`: `length` bytes at `offset` of a content of `total` bytes.
    func content(hash: String, offset: Int64, length: Int, total: Int64) async throws -> Data
    /// `GET /v1/content/{hash}`: `length` bytes at `offset` of a content of `total` bytes,
    /// streamed into `sink` as they arrive.
    func content(hash: String, offset: Int64, length: Int64, total: Int64, into sink: any ResponseBodySink) async throws
}

extension SyncRemote {
    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse {
        try await batch(operations)
    }
}

/// What the server can answer that sync handles specially.
enum SyncRemoteError: Error, Sendable, Equatable {
    /// The cursor is older than the deletions the server keeps: start again from the beginning.
    case resyncRequired
}

/// `SyncRemote` over the authenticated client (refresh, replay and retries included).
///
/// The boundary where the server's answers are checked before sync sees them: every content
/// against its hash and the note limit (`APIClient.checkDownloaded`), and the feed for progress
/// (`FeedProgress`), so the engine never applies a page that fails either.
struct APISyncRemote: SyncRemote {
    let client: APIClient
    let progress = FeedProgress()
    /// The next feed page, asked for before the current one is decoded (`ChangesLookahead`).
    let lookahead = ChangesLookahead()

    init(client: APIClient) {
        self.client = client
    }

    func noteLimit() async -> Int {
        await client.fetchLimits().maxNoteBytes
    }

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        let key = ChangesLookahead.Key(since: since, limit: limit, includeContent: includeContent)
        let client = self.client
        let answer = lookahead.take(key) ?? Task { try await client.send(Self.changesRequest(key)) }
        let response: HTTPResponse
        do {
            response = try await withTaskCancellationHandler { try await answer.value } onCancel: { answer.cancel() }
        } catch ClientError.status(let error) where error.status == 410 {
            throw SyncRemoteError.resyncRequired
        }
        // A page with content and more after it (a clone, a large pull): the next one is asked
        // for now, so the server answers it while this one is decoded and checked.
        if includeContent, let next = ChangesLookahead.nextCursor(in: response.body), next != since, Self.isCursor(next) {
            let nextKey = ChangesLookahead.Key(since: next, limit: limit, includeContent: true)
            lookahead.hold(nextKey, Task { try await client.send(Self.changesRequest(nextKey)) })
        }
        let page = try client.decode(ChangesPage.self, from: response, what: "GET /v1/changes")
        try progress.check(page, since: since)
        try await client.checkDownloaded(page.changes)
        return page
    }

    /// `GET /v1/changes` for `key`.
    private static func changesRequest(_ key: ChangesLookahead.Key) -> APIRequest {
        // Announces attachment support: without it the server leaves attachments out of the feed.
        var query = [("limit", String(key.limit)), ("kinds", "note,attachment")]
        if let since = key.since { query.append(("since", since)) }
        if key.includeContent { query.append(("include", "content")) }
        return APIRequest("GET", "/v1/changes", query: query)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        try await batch(operations, written: operations.map { $0.wireJSON() })
    }

    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse {
        // Every operation carries a precondition and creates use client-chosen ids, so sending
        // the batch again after a lost answer changes nothing more: safe to retry.
        // The body is written by hand (`WireJSONWriter`, the bytes `JSONEncoder` would write):
        // encoding 48 KiB of note text a batch was a tenth of an upload's client time. The
        // results come back without the content just sent (`omit=content`); a server from
        // before the parameter ignores it and sends the notes whole, which reads the same.
        let body = written.count == operations.count
            ? BatchRequest.wireJSON(written: written) : BatchRequest(operations: operations).wireJSON()
        // A body over the server's request limit is refused before it is read, and the
        // connection closed: whether libcurl then reports the 413 or the broken pipe of the body
        // it was still sending is a race. Refused here instead, as the server would, so sync
        // splits the batch and sets the one note aside every time.
        let limit = await client.fetchLimits().maxRequestBytes
        if body.count > limit {
            let refusal = APIErrorBody(code: "payload_too_large",
                                       message: "The request is \(body.count) bytes; this server takes at most \(limit).")
            throw ClientError.status(APIStatusError(status: 413, body: Data(refusal.wireJSON())))
        }
        var request = APIRequest("POST", "/v1/batch", query: [("omit", "content")], body: Data(body), idempotent: true)
        request.headers["Content-Type"] = "application/json; charset=utf-8"
        var response = try await client.json(BatchResponse.self, request)
        guard response.results.count == operations.count else {
            throw ClientError.protocolViolation("the server answered \(response.results.count) results for a batch of \(operations.count)")
        }
        // A span the sync can use names two different cursors of a sane size; anything else is
        // dropped, and the push is read back from the feed as from a server without spans.
        if let span = response.feedSpan, span.before == span.after || !Self.isCursor(span.before) || !Self.isCursor(span.after) {
            response.cursorBefore = nil
            response.cursorAfter = nil
        }
        return response
    }

    /// Whether `text` can be a feed cursor the index stores: short, printable ASCII.
    private static func isCursor(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? {
        let revision: RevisionResource
        do {
            revision = try await client.json(RevisionResource.self, APIRequest("GET", "/v1/notes/\(id.value)/revisions/\(rev)"))
        } catch ClientError.status(let error) where error.status == 404 {
            return nil
        }
        // A merge base is written into the folder as part of a merge: checked like any content.
        if let content = revision.content { try await client.checkDownloaded(content, hash: revision.hash, path: revision.path) }
        return revision
    }
}
