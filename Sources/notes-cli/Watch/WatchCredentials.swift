import Foundation
import NotesCore

/// The one place a watching sync reads the credentials store itself (the client reads it for
/// every refresh): kept apart so it can follow the store wherever it moves.
enum WatchCredentials {
    /// A client on a session of the folder's account that was stored after `ended` (a
    /// `notes login` on this machine while the watcher held the old one), or nil when the store
    /// holds no session of that account other than the one that ended.
    /// - Parameters:
    ///   - ended: the session the watcher held when the server refused it (nil: unknown).
    ///   - bound: the folder's client, whose account and server must match.
    static func newerSession(than ended: StoredSession?, for bound: FolderClient,
                             environment: [String: String]) throws -> APIClient? {
        guard !bound.usesPersonalToken else { return nil }  // NOTES_TOKEN is never replaced behind our back
        let store = try CredentialStore(environment: environment)
        guard let stored = try store.session(for: bound.client.server, userId: bound.account.userId) else { return nil }
        if let ended, stored.refreshToken == ended.refreshToken { return nil }
        return APIClient(server: bound.client.server, credential: .session(stored, store))
    }
}
