import NotesCore

/// `/v1/trash` and `/v1/notes/{id}/purge`: the deleted notes a user can still bring back, and
/// removing one note with its whole history for good. Restoring needs no endpoint of its own:
/// `PUT /v1/notes/{id}` with `If-None-Match: *` re-creates a deleted id, and with `If-Match`
/// writes an old revision's content as a new one.
struct HistoryController: Sendable {
    let store: NoteStore
    /// How long tombstones are kept (`--tombstone-ttl`): a deleted note's `purge_at`.
    let tombstoneRetentionSeconds: Int

    func register(in router: inout Router) {
        router.add("GET", "/v1/trash", access: .read) { try .now(trash($0)) }
        router.add("POST", "/v1/notes/:id/purge", access: .write) { try .now(purge($0)) }
    }

    private func trash(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let limit = try context.intQuery("limit", default: 200, range: 1...store.limits.maxPageSize)
        var before: Int64?
        if let raw = context.request.query["before"] {
            guard let rev = Int64(raw), rev > 0 else {
                throw HTTPError.badRequest("before must be the next_cursor of an earlier page.", code: "invalid_cursor")
            }
            before = rev
        }
        let path = try context.request.query["path"].map { try NotesController.validEntryPath($0).value }
        let rows = try store.trash(userID: user, path: path, before: before, limit: limit, kinds: try context.kindsQuery())
        let retention = Int64(tombstoneRetentionSeconds) * 1000
        let entries = rows.map { row in
            TrashEntry(id: row.id, path: row.path, rev: row.rev, lastRev: row.lastRev, size: row.size,
                       deletedAt: WireTime.string(fromMilliseconds: row.deletedAt),
                       purgeAt: WireTime.string(fromMilliseconds: row.deletedAt + retention), kind: row.kind)
        }
        let next = rows.count == limit ? rows.last.map { String($0.rev) } : nil
        return .wire(TrashPage(notes: entries, nextCursor: next))
    }

    private func purge(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let id = try context.noteID()
        guard let rev = try Preconditions.revision(in: context.request.headers["If-Match"], header: "If-Match") else {
            throw HTTPError.preconditionRequired
        }
        do {
            return .wire(try store.purge(userID: user, id: id, ifMatch: rev))
        } catch let stale as StaleNoteError {
            return NotesController.stale(stale)
        }
    }
}
