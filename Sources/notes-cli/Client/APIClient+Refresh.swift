import Foundation
import NotesCore

extension APIClient {
    /// The body of the single in-flight refresh task: rotates the session's tokens under the
    /// credentials lock, so processes take turns and none loses a newer refresh token.
    ///
    /// Under the lock it re-reads the stored session. If another `notes` process has rotated it
    /// meanwhile (the stored refresh token differs from ours) and the stored access token is
    /// good, it adopts that instead of spending a refresh. Otherwise it presents the stored
    /// refresh token. Only a definitive `invalid_grant` forgets the session, and since the lock
    /// is held, the stored tokens are then exactly the ones that failed. A network failure
    /// changes nothing on disk.
    func performRefresh(replacing held: StoredSession) async throws -> StoredSession {
        defer { refreshTask = nil }
        guard case .session(_, let store) = credential else { throw Self.sessionExpired }
        let server = self.server
        let now = self.now
        let fresh: StoredSession
        do {
            fresh = try await store.update { @Sendable file in
                guard let stored = file.session(server: server.string, userId: held.userId) else {
                    // `notes logout` (or a failed refresh) in another process ended the session.
                    throw Self.sessionExpired
                }
                let rotatedElsewhere = stored.refreshToken != held.refreshToken
                // Right after a 401 too: the token the server refused was ours, not the newer stored one.
                if rotatedElsewhere, !stored.needsRefresh(at: now()) { return stored }
                let answer: TokenResponse
                do {
                    answer = try await self.requestRefresh(using: stored.refreshToken)
                } catch ClientError.status(let error) where error.code == "invalid_grant" {
                    file.remove(stored, ifRefreshTokenIn: [stored.refreshToken])
                    throw Self.sessionExpired
                }
                let rotated = StoredSession(server: server, response: answer,
                                            refreshToken: answer.refreshToken ?? stored.refreshToken, now: now())
                file.store(rotated, replacing: stored, makeDefault: false)
                return rotated
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
