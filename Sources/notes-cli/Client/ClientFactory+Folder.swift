import Foundation
import NotesCommandLine
import NotesCore

/// What a command on a bound folder talks to the server through: the client of the folder's
/// own account.
struct FolderClient: Sendable {
    let client: APIClient
    /// The account the folder is bound to.
    let account: AccountName
    /// The folder, with its account recorded if it was adopted just now.
    let folder: SyncFolder
    /// Whether the folder was bound before accounts were recorded and has just been adopted.
    let adopted: Bool
    /// Whether the credential is `NOTES_TOKEN` rather than a stored session.
    let usesPersonalToken: Bool
}

extension ClientFactory {
    /// How the owner of `NOTES_TOKEN` is checked against a folder's account.
    enum PersonalTokenCheck: Sendable {
        /// Ask `GET /v1/me` before returning the client.
        case now
        /// The caller checks every changes page's `user_id` itself (sync: no extra request).
        case byChangesFeed
    }

    /// The client for the account `folder` is bound to, for every command that reads or writes
    /// a bound folder (sync, status, history). Never the default account's by accident: a
    /// stored session is chosen by the folder's user id, and `NOTES_TOKEN` must belong to it.
    ///
    /// A folder bound before accounts were recorded is adopted (its account written to
    /// `.notes/config.json`) by a signed-in account only when the server confirms that the
    /// notes the folder synced are that account's; a folder that never synced a note is
    /// adopted by the default account.
    /// - Throws: `AccountError`, naming both accounts, when only another account's credentials are
    ///   at hand. Nothing is changed then.
    func client(forFolder folder: SyncFolder, tokenCheck: PersonalTokenCheck = .now) async throws -> FolderClient {
        let server = try ServerURL(folder.config.server)
        guard let bound = folder.config.account else { return try await adopt(folder, server: server) }
        if let token = personalToken {
            let client = APIClient(server: server, credential: .personalToken(token), space: folder.config.spaceId)
            if tokenCheck == .now {
                let owner = AccountName(try await client.me())
                guard owner.userId == bound.userId else {
                    throw AccountError.foreignToken(owner: owner.username, folder: folder.root, account: bound.username,
                                                    server: folder.config.server)
                }
            }
            return FolderClient(client: client, account: bound, folder: folder, adopted: false, usesPersonalToken: true)
        }
        var file = try store.load()
        if file.session(server: server.string, userId: bound.userId) == nil,
           let unidentified = file.session(server: server.string, userId: nil) {
            _ = try await identified(unidentified)
            file = try store.load()
        }
        guard let session = file.session(server: server.string, userId: bound.userId) else {
            throw AccountError.folderAccountNotSignedIn(folder: folder.root, account: bound.username, server: server,
                                                        signedIn: file.sessions(server: server.string).map(\.username))
        }
        return FolderClient(client: APIClient(server: server, credential: .session(session, store), space: folder.config.spaceId), account: bound,
                            folder: folder, adopted: false, usesPersonalToken: false)
    }

    /// Binds a folder from before accounts were recorded to the first signed-in account the
    /// server confirms owns its notes (at most a few requests, once per folder).
    private func adopt(_ folder: SyncFolder, server: ServerURL) async throws -> FolderClient {
        var candidates: [(client: APIClient, account: AccountName, token: Bool)] = []
        if let token = personalToken {
            let client = APIClient(server: server, credential: .personalToken(token))
            candidates.append((client, AccountName(try await client.me()), true))
        } else {
            for stored in try store.load().sessions(server: server.string) {
                let session = try await identified(stored)
                guard let account = session.account, !candidates.contains(where: { $0.account == account }) else { continue }
                candidates.append((APIClient(server: server, credential: .session(session, store)), account, false))
            }
        }
        guard let first = candidates.first else {
            throw AccountError.notSignedInTo(server: server, username: nil)
        }
        let known = try Self.knownNoteIDs(folder, limit: 3)
        var owner = known.isEmpty ? first : nil
        for candidate in candidates where owner == nil {
            if try await Self.owns(known, candidate.client) { owner = candidate }
        }
        guard let owner else {
            throw AccountError.folderOwnerNotSignedIn(folder: folder.root, server: server,
                                                      signedIn: candidates.map(\.account.username))
        }
        let adopted = try folder.recordingAccount(owner.account)
        return FolderClient(client: owner.client, account: owner.account, folder: adopted, adopted: true, usesPersonalToken: owner.token)
    }

    /// Up to `limit` note ids the folder has synced, the most recently changed first.
    private static func knownNoteIDs(_ folder: SyncFolder, limit: Int) throws -> [NoteID] {
        guard FileManager.default.fileExists(atPath: folder.indexPath) else { return [] }
        let rows: [IndexRow]
        do {
            let index = try SyncIndex(path: folder.indexPath)
            defer { try? index.close() }
            rows = try index.rows()
        } catch {
            throw FolderError.cannotReadIndex(path: folder.indexPath, cause: error)
        }
        return rows.filter { $0.base.rev > 0 }.sorted { $0.base.rev > $1.base.rev }.prefix(limit).map(\.base.id)
    }

    /// Whether the account behind `client` has (or had: tombstones keep their history) one
    /// of `ids`. Note ids are random UUIDs, so one found is proof enough.
    private static func owns(_ ids: [NoteID], _ client: APIClient) async throws -> Bool {
        for id in ids {
            do {
                _ = try await client.send(APIRequest("GET", "/v1/notes/\(id.value)/revisions"))
                return true
            } catch ClientError.status(let error) where error.status == 404 {
                continue
            }
        }
        return false
    }
}

extension ClientFactory {
    /// The account a new binding (`notes init`, `notes clone`) records: the owner of
    /// `NOTES_TOKEN`, else `username`'s stored session, else the default account's. Costs no
    /// request for a stored session whose account is known.
    /// - Throws: `AccountError.signInBeforeBinding` when not signed in to `server` (as `username`).
    func accountForBinding(server: ServerURL, username: String?) async throws -> AccountName {
        if let token = personalToken {
            if username != nil { throw UsageError("NOTES_TOKEN is set and decides the account: unset it to choose one with --username") }
            return AccountName(try await APIClient(server: server, credential: .personalToken(token)).me())
        }
        let session: StoredSession
        do {
            session = try await identified(try self.session(server: server, username: username))
        } catch let error as AccountError {
            throw AccountError.signInBeforeBinding(cause: error)
        } catch let error as ClientError where error.endsSession {
            throw AccountError.signInBeforeBinding(cause: error)
        }
        guard let account = session.account else { throw AccountError.sessionUnidentified }
        return account
    }
}
