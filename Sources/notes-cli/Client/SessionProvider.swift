import Foundation
import NotesCore
import Synchronization

/// The credential behind a signed-in client: one account's session on one server, kept in step
/// with the credentials store that every `notes` process on this machine shares.
///
/// `APIClient` asks it for the session to sign with and hands it the outcome of each refresh;
/// this is the only place a live session is read from or written to the credentials file. Each
/// step is one short `CredentialStore.update`, whose body cannot suspend: the cross-process
/// lock is held to read and write the file and never across a network round trip, which may
/// take longer (the request deadline and its retries) than another process waits for the lock.
///
/// A refresh therefore takes three steps, and the client does the network part in between:
/// 1. `renewal(of:now:)`: under the lock, read the stored session. If another process rotated
///    it meanwhile and its access token is good, adopt it; else say which refresh token to present.
/// 2. (the client, without the lock) present that token to the server.
/// 3. `rotated(to:presented:account:now:)` or `refused(presented:account:)`: under the lock,
///    store the rotated tokens only if the stored ones are still those presented (another
///    process that rotated in between wins: the server accepts a refresh token twice within its
///    grace window, so both answers were good), or forget the session only while the stored
///    refresh token is still the refused one.
final class SessionProvider: Sendable {
    /// What a refresh should do, as the store says right now.
    enum Renewal: Sendable, Equatable {
        /// Another process already rotated the session and its access token is good: use it.
        case adopted(StoredSession)
        /// Present this refresh token to the server.
        case present(refreshToken: String)
    }

    private struct State: Sendable {
        /// The session in use (the last one, once ended: it names the account).
        var session: StoredSession
        /// Set once the session is known to be dead, so later requests fail at once.
        var ended: ClientError?
        /// Every refresh token this process has held for the account: what `forget()` may remove.
        var heldRefreshTokens: Set<String>
    }

    let server: ServerURL
    let store: CredentialStore
    private let state: Mutex<State>

    /// Provides `session` (as read from `store`) for requests to `server`.
    init(server: ServerURL, session: StoredSession, store: CredentialStore) {
        self.server = server
        self.store = store
        state = Mutex(State(session: session, ended: nil, heldRefreshTokens: [session.refreshToken]))
    }

    /// The session to sign the next request with.
    /// - Throws: `ClientError.sessionEnded` (or why it ended) once the session is known dead.
    func current() throws(ClientError) -> StoredSession {
        let (session, ended) = state.withLock { ($0.session, $0.ended) }
        if let ended { throw ended }
        return session
    }

    /// The session held now, nil once it has ended.
    var held: StoredSession? {
        state.withLock { $0.ended == nil ? $0.session : nil }
    }

    /// Records that the session is dead for this process (`why` ends every later request).
    func end(_ why: ClientError) {
        state.withLock { $0.ended = why }
    }

    /// Step 1 of a refresh of `held`: adopts a rotation another process stored, or says which
    /// refresh token to present.
    /// - Throws: `ClientError.sessionEnded` when the account is no longer signed in here
    ///   (`notes logout`, or a refresh refused in another process); the session is then ended.
    func renewal(of held: StoredSession, now: Date) async throws -> Renewal {
        let server = server.string
        let stored = try await endingOnFailure {
            try await store.update { @Sendable file in
                guard let stored = file.session(server: server, userId: held.userId) else { throw ClientError.sessionEnded }
                return stored
            }
        }
        // Right after a 401 too: the token the server refused was ours, not the newer stored one.
        if stored.refreshToken != held.refreshToken, !stored.needsRefresh(at: now) {
            hold(stored)
            return .adopted(stored)
        }
        return .present(refreshToken: stored.refreshToken)
    }

    /// Step 3 of a refresh that presented `presented` and was answered with `answer` at `now`:
    /// stores and holds the rotated pair, unless another process rotated meanwhile (its tokens
    /// are held instead, and ours are dropped: both are good).
    /// - Parameter account: the user id the session was stored under (nil for one kept from
    ///   a version 1 file, identified by this answer).
    /// - Throws: `ClientError.sessionEnded` when the account was signed out meanwhile: the
    ///   sign-out wins and these tokens are not kept.
    func rotated(to answer: TokenResponse, presented: String, account: Int64?, now: Date) async throws -> StoredSession {
        let rotated = StoredSession(server: server, response: answer, refreshToken: answer.refreshToken ?? presented, now: now)
        let server = server.string
        let fresh = try await endingOnFailure {
            try await store.update { @Sendable file in
                guard let current = file.session(server: server, userId: account) else { throw ClientError.sessionEnded }
                guard current.refreshToken == presented else { return current }
                file.store(rotated, replacing: current, makeDefault: false)
                return rotated
            }
        }
        hold(fresh)
        return fresh
    }

    /// Step 3 of a refresh whose token `presented` the server refused for good (`invalid_grant`):
    /// forgets the session here, unless another process rotated it meanwhile (that one is
    /// live and is held instead).
    /// - Throws: `ClientError.sessionEnded` when the session is over.
    func refused(presented: String, account: Int64?) async throws -> StoredSession {
        let server = server.string
        let live = try await endingOnFailure {
            try await store.update { @Sendable file in
                guard let current = file.session(server: server, userId: account) else { throw ClientError.sessionEnded }
                if current.refreshToken != presented { return current }
                file.remove(current, ifRefreshTokenIn: [presented])
                throw ClientError.sessionEnded
            }
        }
        hold(live)
        return live
    }

    /// Whether the store holds a newer session of this account than the one held, adopting it if
    /// so: another process refreshed the session, or the user signed in again after it ended
    /// here. Long-lived processes (`notes sync --watch`) ask between rounds, so one that outlives
    /// a sign-out and sign-in goes on with the new session instead of failing for good.
    ///
    /// The store only moves forward (this process too holds only what it read from or wrote to
    /// it), so a stored refresh token other than the held one is the newer session.
    /// - Returns: the adopted session; nil when the held one is still the newest, or when the
    ///   account is not signed in here any more (the next request then ends the session).
    /// - Throws: `CredentialsError` when the credentials file cannot be read.
    @discardableResult
    func adoptNewerSession() throws -> StoredSession? {
        let held = state.withLock { $0.session }
        guard let stored = try store.load().session(server: server.string, userId: held.userId),
              stored.refreshToken != held.refreshToken else { return nil }
        hold(stored)
        return stored
    }

    /// Adds what `/v1/me` said to a session kept from a version 1 file (its user id unknown),
    /// storing it under its account from then on.
    /// - Returns: the identified session (the one already stored under the account, if any).
    func identify(as user: UserResource) async throws -> StoredSession {
        let server = server.string
        let current = state.withLock { $0.session }
        let identified = try await store.update { @Sendable file in
            // A refresh during the request that told us may already have stored it under its account.
            if let known = file.session(server: server, userId: user.id) { return known }
            var found = current
            found.userId = user.id
            found.username = user.username
            file.store(found, replacing: current, makeDefault: false)
            return found
        }
        hold(identified)
        return identified
    }

    /// Forgets the account's session on this machine (`notes logout`): the one held and any
    /// this process held before it, but not a newer sign-in another process stored meanwhile.
    func forget() async throws {
        let (session, tokens) = state.withLock { ($0.session, $0.heldRefreshTokens) }
        try await store.update { @Sendable file in
            _ = file.remove(session, ifRefreshTokenIn: tokens)
        }
        end(.sessionEnded)
    }

    /// Makes `session` the one in use (and lifts an end: it is live).
    private func hold(_ session: StoredSession) {
        state.withLock {
            $0.session = session
            $0.ended = nil
            $0.heldRefreshTokens.insert(session.refreshToken)
        }
    }

    /// Runs `body`; a failure that ends the session ends it for this process too.
    private func endingOnFailure<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError where error.endsSession {
            end(error)
            throw error
        }
    }
}
