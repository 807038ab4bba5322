import Foundation
import NotesCore

extension APIClient {
    /// The body of the single in-flight refresh task: rotates the session's tokens without ever
    /// holding the credentials lock across the network.
    ///
    /// The lock is held only to read and to write: a refresh may take as long as the request
    /// deadline and its retries, longer than another `notes` process waits for the lock
    /// (`FileLock`), so holding it across the round trip would fail that process for nothing.
    /// 1. Under the lock, read the stored session. If another process has rotated it meanwhile
    ///    (the stored refresh token differs from ours) and its access token is good, adopt it.
    /// 2. Without the lock, present the stored refresh token.
    /// 3. Under the lock again, store the rotated tokens only if the stored ones are still those
    ///    that were presented. If another process rotated in between, its tokens win and are used
    ///    (the server accepts the same refresh token twice within its grace window, so both
    ///    answers were good). Only a definitive `invalid_grant` forgets the session, and only if
    ///    the stored refresh token is still the refused one. A network failure changes nothing.
    func performRefresh(replacing held: StoredSession) async throws -> StoredSession {
        defer { refreshTask = nil }
        guard case .session(_, let store) = credential else { throw Self.sessionExpired }
        let server = self.server
        let now = self.now
        let fresh: StoredSession
        do {
            let stored = try await store.update { @Sendable file in
                // `notes logout` (or a failed refresh) in another process ended the session.
                guard let stored = file.session(server: server.string, userId: held.userId) else { throw Self.sessionExpired }
                return stored
            }
            let rotatedElsewhere = stored.refreshToken != held.refreshToken
            // Right after a 401 too: the token the server refused was ours, not the newer stored one.
            if rotatedElsewhere, !stored.needsRefresh(at: now()) {
                fresh = stored
            } else {
                let presented = stored.refreshToken
                let answer: TokenResponse
                do {
                    answer = try await requestRefresh(using: presented)
                } catch ClientError.status(let error) where error.code == "invalid_grant" {
                    fresh = try await store.update { @Sendable file in
                        guard let current = file.session(server: server.string, userId: held.userId) else { throw Self.sessionExpired }
                        // Another process rotated while ours was refused: its session is the live one.
                        if current.refreshToken != presented { return current }
                        file.remove(current, ifRefreshTokenIn: [presented])
                        throw Self.sessionExpired
                    }
                    session = fresh
                    return fresh
                }
                let rotated = StoredSession(server: server, response: answer,
                                            refreshToken: answer.refreshToken ?? presented, now: now())
                fresh = try await store.update { @Sendable file in
                    guard let current = file.session(server: server.string, userId: held.userId) else {
                        // Signed out meanwhile: the sign-out wins; these tokens are not kept.
                        throw Self.sessionExpired
                    }
                    guard current.refreshToken == presented else { return current }
                    file.store(rotated, replacing: current, makeDefault: false)
                    return rotated
                }
            }
        } catch let error as ClientError where error.endsSession {
            sessionEnded = error
            throw error
        }
        session = fresh
        return fresh
    }

    /// `POST /v1/auth/refresh`. Marked idempotent (so retried on a network error or 5xx)
    /// because the server answers a refresh token reused within its grace window normally: a
    /// retry after a lost answer does not kill the session.
    func requestRefresh(using refreshToken: String) async throws -> TokenResponse {
        let request = try APIRequest.json("POST", "/v1/auth/refresh", RefreshRequest(refreshToken: refreshToken),
                                          idempotent: true, authenticated: false)
        let response = try await sendRetrying(request, bearer: nil)
        if response.status == 401 {
            let error = APIStatusError(response)
            // Any other 401 here is not the definitive answer that the session is dead: keep the
            // tokens (a later run may succeed) but this request cannot go on.
            if error.code == "invalid_grant" { throw ClientError.status(error) }
            throw ClientError.renewalRefused(error)
        }
        guard (200..<300).contains(response.status) else {
            throw ClientError.status(APIStatusError(response))
        }
        return try decode(TokenResponse.self, from: response, what: "POST /v1/auth/refresh")
    }

    /// Decodes a JSON answer, or fails with a sentence naming the request.
    nonisolated func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, what: String) throws -> T {
        do {
            return try WireJSON.decoder().decode(type, from: response.body)
        } catch {
            throw ClientError.answerNotUnderstood(what: what, reason: "\(error)")
        }
    }
}
