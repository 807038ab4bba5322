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

extension LoginThrottle.Refusal: HTTPAnswerable {
    /// 429 `too_many_requests` for a limit, 503 `storage_unavailable` when the shared counts
    /// cannot be checked; either with `Retry-After`.
    var httpError: HTTPError {
        switch cause {
        case .wait(let reason, let seconds):
            HTTPError(429, code: "too_many_requests", message: "\(reason); retry after \(seconds) seconds.",
                      headers: ["Retry-After": String(seconds)])
        case .storageUnavailable:
            HTTPError(503, code: "storage_unavailable", message: "The server cannot check sign-in attempts right now; retry shortly.",
                      headers: ["Retry-After": String(retryAfterSeconds)])
        }
    }
}

extension DeviceCodeError: HTTPAnswerable {
    /// 429 when one address holds too many waiting codes, 503 when no free code could be drawn.
    var httpError: HTTPError {
        switch self {
        case .tooManyWaiting:
            HTTPError(429, code: "too_many_requests",
                      message: "Too many device codes are waiting from your address; approve or let some expire first.",
                      headers: ["Retry-After": "60"])
        case .noFreeCode:
            HTTPError(503, code: "server_busy", message: "No free device code could be made; try again.", headers: ["Retry-After": "1"])
        }
    }
}
