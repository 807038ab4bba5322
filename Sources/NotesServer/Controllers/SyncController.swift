import NotesCore

/// `/v1/changes` and `/v1/batch`: the two endpoints sync is built on.
///
/// The changes feed, and its long poll, are in `SyncController+Changes.swift`.
struct SyncController: Sendable {
    let store: NoteStore
    /// The held changes requests and their caps.
    let waiting: WaitingRequests
    /// The longest a changes request is held (`--max-wait`); a longer `wait` is shortened to it.
    let maxWaitSeconds: Int
    let log: @Sendable (String) -> Void

    func register(in router: inout Router) {
        router.add("GET", "/v1/changes", access: .read) { try changes($0) }
        router.add("POST", "/v1/batch", access: .write) { try .now(batch($0)) }
    }

    /// Applies every operation in one transaction; each gets its own status, like a request alone.
    /// An operation that fails its precondition or validation fails alone; the others still apply.
    ///
    /// The operations go through a `NoteBatch`: on PostgreSQL it decides them one by one against
    /// rows read in one statement and writes them all at the end, not two round trips per note.
    ///
    /// Operations run without a savepoint each: every refusal (`StaleNoteError`, `HTTPError`,
    /// `NotePathError`, `NoteStoreError`) is thrown before the operation writes anything, and any other error
    /// rolls the whole batch back. A savepoint per note made SQLite's FTS5 flush its pending index at each one.
    ///
    /// The answer says where the account's changes feed stood just before and just after the
    /// batch's writes (`cursor_before`, `cursor_after`), so the client that made them can move
    /// its cursor over them instead of reading them back (`PushPhase.swift`).
    ///
    /// With `omit=content`, the note of an applied write comes back without its content (the
    /// caller just sent it): an upload's answers stay small. A stale write's current note keeps
    /// its content, which the caller needs to merge. Without it, every note comes whole, as
    /// clients before the parameter expect.
    private func batch(_ context: RequestContext) throws -> HTTPResponse {
        let caller = try context.caller()
        let user = caller.userID
        let omit = context.request.query["omit"] ?? ""
        guard omit.isEmpty || omit == "content" else {
            throw HTTPError.badRequest("omit accepts only \"content\".", code: "invalid_parameter")
        }
        let request = try context.decode(BatchRequest.self)
        guard request.operations.count <= store.limits.maxBatchOperations else {
            throw HTTPError(413, code: "batch_too_large", message: "A batch may hold at most \(store.limits.maxBatchOperations) operations.")
        }
        let response = try store.write(for: user) { db in try NoteStore.recordingAuthor(caller.accountID, of: user,
                                                                                        entries: request.operations.map(\.id), in: db) {
            let batch = try store.batch(db, userID: user, device: caller.device, ids: request.operations.map(\.id),
                                        paths: request.operations.compactMap(\.path))
            let results = try request.operations.map { operation in
                do {
                    var result = try apply(operation, batch: batch)
                    if omit == "content" { result.note?.content = nil }
                    return result
                } catch let stale as StaleNoteError {
                    return BatchResult(id: operation.id, status: 412, note: stale.current?.resource,
                                       error: .init(code: "precondition_failed", message: stale.message))
                } catch {
                    // The same mapping as a request alone; anything else rolls the batch back.
                    guard let refusal = HTTPError.refusal(for: error) else { throw error }
                    return BatchResult(id: operation.id, status: refusal.status, error: .init(code: refusal.code, message: refusal.message))
                }
            }
            try batch.finish()
            // Where the feed stood around this batch's writes: every revision between is one of
            // them (the writer, or the user's row lock, is held), so a client that saw the feed up
            // to `before` need not read these back. Nothing written: nothing to say.
            let before = batch.revisionBefore, after = try batch.revisionNow()
            guard after > before else { return BatchResponse(results: results) }
            return BatchResponse(results: results, cursorBefore: NoteChangesCursor(rev: before, fullWalk: false).text,
                                 cursorAfter: NoteChangesCursor(rev: after, fullWalk: false).text)
        } }
        return .wire(response)
    }

    private func apply(_ operation: BatchOperation, batch: NoteBatch) throws -> BatchResult {
        switch operation.op {
        case .put where operation.kind == .attachment:
            guard let rawPath = operation.path, let hash = operation.hash, operation.content == nil else {
                throw HTTPError.badRequest("An attachment put needs path and hash, and no content.", code: "invalid_operation")
            }
            guard ContentHash.isValid(hash) else { throw HTTPError.invalidHash }
            let path = try NotesController.validEntryPath(rawPath)
            guard path.kind == .attachment else {
                throw HTTPError(422, code: "invalid_path", message: "A path ending .md or .markdown names a note, not an attachment.")
            }
            let result = try batch.putAttachment(id: operation.id, path: path, hash: hash, precondition: try Self.precondition(of: operation))
            return BatchResult(id: operation.id, status: result.created ? 201 : 200, note: result.note.resource)
        case .put:
            guard let rawPath = operation.path, let content = operation.content else {
                throw HTTPError.badRequest("A put needs path and content.", code: "invalid_operation")
            }
            let path = try NotesController.validPath(rawPath)
            let precondition = try Self.precondition(of: operation)
            let result = try batch.put(id: operation.id, path: path, content: content, precondition: precondition)
            return BatchResult(id: operation.id, status: result.created ? 201 : 200, note: result.note.resource)
        case .delete:
            guard let rev = operation.ifMatch else { throw HTTPError.preconditionRequired }
            let note = try batch.delete(id: operation.id, ifMatch: rev)
            return BatchResult(id: operation.id, status: 200, note: note.resource)
        }
    }

    /// A put's precondition: `if_none_match: "*"` (create) or `if_match` (change), exactly one.
    private static func precondition(of operation: BatchOperation) throws -> WritePrecondition {
        switch (operation.ifNoneMatch, operation.ifMatch) {
        case ("*", nil): .absent
        case (nil, let rev?): .revision(rev)
        case (nil, nil): throw HTTPError.preconditionRequired
        default: throw HTTPError.badRequest("Give either if_none_match \"*\" or if_match, not both.", code: "invalid_precondition")
        }
    }
}
