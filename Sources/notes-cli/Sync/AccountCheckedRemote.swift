import Foundation
import NotesCore
import Synchronization

/// The sync's remote, refusing any changes page that is not the folder's account's before the
/// engine sees it (docs/architecture.md, Sync invariants 12: a folder is only ever synced with the account it is bound to).
///
/// The check costs no request: each page says whose notes it holds (`user_id`), and the sync's
/// first request is always a changes page, before anything is applied or uploaded. Only a
/// server that does not send `user_id` costs one `GET /v1/me`, once.
final class AccountCheckedRemote: SyncRemote {
    let base: any SyncRemote
    let bound: FolderClient
    /// Set once `GET /v1/me` confirmed the account for a page without `user_id`.
    private let confirmed = Mutex(false)

    init(_ base: any SyncRemote, bound: FolderClient) {
        self.base = base
        self.bound = bound
    }

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        let page = try await base.changes(since: since, limit: limit, includeContent: includeContent)
        if let owner = page.userId {
            // A folder of a shared space: the pages are the space's, whose id the folder recorded.
            guard owner == (bound.folder.config.spaceId ?? bound.account.userId) else { throw await mismatch(owner) }
        } else if !confirmed.withLock({ $0 }) {
            let user = try await bound.client.me()
            guard user.id == bound.account.userId else { throw await mismatch(user.id) }
            confirmed.withLock { $0 = true }
        }
        return page
    }

    func noteLimit() async -> Int {
        await base.noteLimit()
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        try await base.batch(operations)
    }

    func batch(_ operations: [BatchOperation], written: [[UInt8]]) async throws -> BatchResponse {
        try await base.batch(operations, written: written)
    }

    func limits() async -> ServerLimits { await base.limits() }
    func missingContent(_ hashes: [String]) async throws -> [String] { try await base.missingContent(hashes) }
    func putContent(hash: String, bytes: [UInt8]) async throws -> Bool { try await base.putContent(hash: hash, bytes: bytes) }
    func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]? {
        try await base.putContents(body, hashes: hashes)
    }
    func openUpload(hash: String, size: Int64) async throws -> UploadState { try await base.openUpload(hash: hash, size: size) }
    func putChunk(hash: String, index: Int, body: FileBody, digest: [UInt8]) async throws { try await base.putChunk(hash: hash, index: index, body: body, digest: digest) }
    func completeUpload(hash: String) async throws { try await base.completeUpload(hash: hash) }
    func content(hash: String, offset: Int64, length: Int, total: Int64) async throws -> Data {
        try await base.content(hash: hash, offset: offset, length: length, total: total)
    }
    func content(hash: String, offset: Int64, length: Int64, total: Int64, into sink: any ResponseBodySink) async throws {
        try await base.content(hash: hash, offset: offset, length: length, total: total, into: sink)
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? {
        try await base.revision(id: id, rev: rev)
    }

    /// The refusal naming both accounts; asks the server the other one's name (this path only).
    private func mismatch(_ owner: Int64) async -> any Error {
        let name = (try? await bound.client.me()).map(\.username) ?? "user \(owner)"
        let folder = bound.folder
        if bound.usesPersonalToken {
            return AccountError.foreignToken(owner: name, folder: folder.root, account: bound.account.username, server: folder.config.server)
        }
        return AccountMismatch(answeredFor: name, folder: folder.root, boundAccount: bound.account.username, server: folder.config.server)
    }
}
