import Foundation
import NotesCommandLine
import NotesCore

/// Turns the command line and environment into the server to talk to and the credential to
/// talk with, by one rule for every command outside a bound folder:
///
/// - server: `--server`, else `NOTES_SERVER`, else the one server signed in to (several: ask);
/// - credential: `NOTES_TOKEN` (a personal token, for scripts and CI) when set, else the
///   session `notes login` stored for that server: the account named by `--username`, else the
///   default account (the one signed in to last, or the only one).
///
/// Commands on a bound folder use `client(forFolder:)` instead (ClientFactory+Folder.swift):
/// the folder's own account, whatever the default is.
struct ClientFactory: Sendable {
    var environment: [String: String]
    var store: CredentialStore

    init(environment: [String: String]) throws {
        self.environment = environment
        store = try CredentialStore(environment: environment)
    }

    /// The personal token from `NOTES_TOKEN`, if set and not empty.
    var personalToken: String? {
        guard let token = environment["NOTES_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else { return nil }
        return token
    }

    /// The server named by `--server` or `NOTES_SERVER`, or nil when neither is given.
    func explicitServer(_ option: String?) throws -> ServerURL? {
        if let option { return try ServerURL(option) }
        if let variable = environment["NOTES_SERVER"], !variable.isEmpty { return try ServerURL(variable) }
        return nil
    }

    /// The server to use: explicit, else the single one with stored credentials.
    /// - Throws: `AccountError` when none is known, `UsageError` when several are and none was chosen.
    func server(_ option: String?) throws -> ServerURL {
        if let server = try explicitServer(option) { return server }
        let stored = try store.load().servers.filter { !$0.value.isEmpty }.keys.sorted()
        switch stored.count {
        case 0:
            if personalToken != nil { throw UsageError("NOTES_TOKEN is set but no server is: set NOTES_SERVER or pass --server URL") }
            throw AccountError.notSignedIn
        case 1:
            return try ServerURL(stored[0])
        default:
            throw UsageError("signed in to several servers (\(stored.joined(separator: ", "))): choose one with --server or NOTES_SERVER")
        }
    }

    /// The server `notes login` signs in to: explicit, else the one signed in to, else the one
    /// whose last session ended here (revoked or expired), so signing in again needs no `--server`.
    /// Nil when none of these says.
    func serverForSignIn(_ option: String?) throws -> ServerURL? {
        if let server = try explicitServer(option) ?? (try? server(nil)) { return server }
        return try store.load().lastEndedServer.flatMap { try? ServerURL($0) }
    }

    /// The stored session for `username` on `server`, else the default account's.
    /// - Throws: `AccountError` when that account is not signed in here; `UsageError` when several
    ///   accounts are and none is the default.
    func session(server: ServerURL, username: String?) throws -> StoredSession {
        let file = try store.load()
        let sessions = file.sessions(server: server.string)
        if let username {
            guard let session = sessions.first(where: { $0.username == username }) else {
                throw AccountError.notSignedInTo(server: server, username: username)
            }
            return session
        }
        if let session = file.defaultSession(server: server.string) { return session }
        guard sessions.isEmpty else {
            let names = sessions.map(\.username).joined(separator: ", ")
            throw UsageError("signed in to \(server) as \(names): choose the account with --username")
        }
        throw AccountError.notSignedInTo(server: server, username: nil)
    }

    /// The authenticated client for `--server` (or the default server) and `--username` (or
    /// the default account).
    /// - Throws: `AccountError` when there is no stored session for the account and no `NOTES_TOKEN`;
    ///   a usage error for `--username` with `NOTES_TOKEN` (the token decides the account).
    func client(server option: String?, username: String? = nil) throws -> APIClient {
        let server = try server(option)
        if let token = personalToken {
            if username != nil { throw UsageError("NOTES_TOKEN is set and decides the account: unset it to choose one with --username") }
            return APIClient(server: server, credential: .personalToken(token))
        }
        return APIClient(server: server, credential: .session(try session(server: server, username: username), store))
    }

    /// `session` with its user id known: a session kept from the one-account file of earlier
    /// versions is identified once (`GET /v1/me`) and stored under its account from then on.
    func identified(_ session: StoredSession) async throws -> StoredSession {
        guard session.userId == nil else { return session }
        let server = try ServerURL(session.server)
        let client = APIClient(server: server, credential: .session(session, store))
        let user = try await client.me()
        guard let provider = client.sessionProvider else { throw AccountError.sessionUnidentified }
        return try await provider.identify(as: user)
    }
}
