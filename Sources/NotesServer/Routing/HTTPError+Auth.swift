import NotesCore

// The answers for the auth stores' refusals; stores throw these errors and know nothing of HTTP.

extension SessionError: HTTPAnswerable {
    /// 401 `invalid_grant` (RFC 6749 §5.2 names the code; the API answers 401 rather than 400 so
    /// that clients treat it like any other "sign in again" answer).
    var httpError: HTTPError {
        switch self {
        case .invalidGrant(let message):
            HTTPError(401, code: "invalid_grant", message: message,
                      headers: ["Cache-Control": "no-store", "WWW-Authenticate": HTTPError.bearerChallenge])
        }
    }
}

extension PersonalTokenError: HTTPAnswerable {
    /// The answer for each refusal.
    var httpError: HTTPError {
        switch self {
        case .tooMany(let limit):
            HTTPError(409, code: "too_many_tokens", message: "You have \(limit) personal tokens already; revoke one you no longer use.")
        case .scopeBeyondCreator:
            HTTPError(403, code: "exceeds_creator",
                      message: "A read-only personal token cannot create a write token; sign in or use a write token.")
        case .outlivesCreator(let remaining):
            HTTPError(403, code: "exceeds_creator",
                      message: "A personal token cannot create a token that outlives it: this one expires in \(remaining) seconds, so set \"expires_in\" to at most that, or sign in to create longer-lived tokens.")
        }
    }
}
