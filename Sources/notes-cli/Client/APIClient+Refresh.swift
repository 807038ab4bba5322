import Foundation
import NotesCore

extension APIClient {
    /// The body of the single in-flight refresh task: rotates the session's tokens through the
    /// `SessionProvider`, which holds the credentials lock only to read and to write, never
    /// across the round trip here in between (see its header for the three steps).
    /// Only a definitive `invalid_grant` forgets the session; a network failure changes nothing.
    func performRefresh(replacing held: StoredSession) async throws -> StoredSession {
        defer { refreshTask = nil }
        guard let provider = sessionProvider else { throw Self.sessionExpired }
        let presented: String
        switch try await provider.renewal(of: held, now: now()) {
        case .adopted(let theirs): return theirs
        case .present(let refreshToken): presented = refreshToken
        }
        let answer: TokenResponse
        do {
            answer = try await requestRefresh(using: presented)
        } catch ClientError.status(let error) where error.code == "invalid_grant" {
            return try await provider.refused(presented: presented, account: held.userId)
        } catch let error as ClientError where error.endsSession {
            provider.end(error)
            throw error
        }
        return try await provider.rotated(to: answer, presented: presented, account: held.userId, now: now())
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

    private nonisolated static func readByHand<Value: WireJSONReadable>(_ type: Value.Type, from body: Data) -> Value? {
        WireJSONReading.decode(type, from: body)
    }

    /// Decodes a JSON answer, or fails with a sentence naming the request.
    nonisolated func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, what: String) throws -> T {
        // Pages of changes and batch answers are read by hand (a fifth of a clone's time went to
        // JSONDecoder); whatever the hand reader refuses, JSONDecoder decides.
        if let readable = type as? any WireJSONReadable.Type, let value = Self.readByHand(readable, from: response.body) as? T {
            return value
        }
        do {
            return try WireJSON.decoder().decode(type, from: response.body)
        } catch {
            throw ClientError.answerNotUnderstood(what: what, reason: "\(error)")
        }
    }
}
