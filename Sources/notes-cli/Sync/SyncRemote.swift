import Foundation
import NotesCore

/// The server side sync needs, and nothing more: the changes feed, batched writes, and old
/// revisions as merge bases.
protocol SyncRemote: Sendable {
    /// `GET /v1/changes`: notes changed after `since` (`nil`: from the beginning).
    /// - Throws: `SyncRemoteError.resyncRequired` for a cursor older than the kept tombstones.
    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage
    /// `POST /v1/batch`: the result of each operation, in order.
    func batch(_ operations: [BatchOperation]) async throws -> [BatchResult]
    /// `GET /v1/notes/{id}/revisions/{rev}` with content; `nil` when it no longer exists.
    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource?
}

/// What the server can answer that sync handles specially.
enum SyncRemoteError: Error, Sendable, Equatable {
    /// The cursor is older than the deletions the server keeps: start again from the beginning.
    case resyncRequired
}

/// `SyncRemote` over the authenticated client (refresh, replay and retries included).
struct APISyncRemote: SyncRemote {
    let client: APIClient

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        var query = [("limit", String(limit))]
        if let since { query.append(("since", since)) }
        if includeContent { query.append(("include", "content")) }
        do {
            return try await client.json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: query))
        } catch let error as APIStatusError where error.status == 410 {
            throw SyncRemoteError.resyncRequired
        }
    }

    func batch(_ operations: [BatchOperation]) async throws -> [BatchResult] {
        // Every operation carries a precondition and creates use client-chosen ids, so sending
        // the batch again after a lost answer changes nothing more: safe to retry.
        let request = try APIRequest.json("POST", "/v1/batch", BatchRequest(operations: operations), idempotent: true)
        let response = try await client.json(BatchResponse.self, request)
        guard response.results.count == operations.count else {
            throw CLIError.failure("the server answered \(response.results.count) results for a batch of \(operations.count)")
        }
        return response.results
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? {
        do {
            return try await client.json(RevisionResource.self, APIRequest("GET", "/v1/notes/\(id.value)/revisions/\(rev)"))
        } catch let error as APIStatusError where error.status == 404 {
            return nil
        }
    }
}
