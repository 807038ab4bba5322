/// The API's own error answers, beyond the generic ones the HTTP layer defines.
extension HTTPError {
    /// 404 for a note id this user does not have (another user's ids look the same).
    static let noteNotFound = HTTPError.notFound("There is no note with this id.")

    /// The challenge every 401 carries (RFC 6750 §3; RFC 9110 requires one on each 401).
    static let bearerChallenge = #"Bearer realm="notes""#

    /// 401 for a request without bearer credentials (RFC 6750 §3.1: no error code then).
    static func unauthenticated() -> HTTPError {
        HTTPError(401, code: "unauthenticated", message: "Sign in: this endpoint needs a bearer token.",
                  headers: ["WWW-Authenticate": bearerChallenge])
    }

    /// 401 for a token that was presented but cannot be used; `reason` says why without
    /// revealing anything about the secret (RFC 6750 §3.1 `invalid_token`).
    static func invalidToken(_ reason: String) -> HTTPError {
        HTTPError(401, code: "invalid_token", message: "The access token \(reason).",
                  headers: ["WWW-Authenticate": #"\#(bearerChallenge), error="invalid_token", error_description="The access token \#(reason)""#])
    }

    /// 400 for a malformed `Authorization` header (RFC 6750 §3.1 `invalid_request`).
    static func invalidRequest(_ message: String) -> HTTPError {
        HTTPError(400, code: "invalid_request", message: message,
                  headers: ["WWW-Authenticate": #"\#(bearerChallenge), error="invalid_request""#])
    }

    /// 403 for a read-only token that tries to write (RFC 6750 §3.1 `insufficient_scope`).
    static let insufficientScope = HTTPError(
        403, code: "insufficient_scope", message: "This token may only read; use a token with the write scope.",
        headers: ["WWW-Authenticate": #"Bearer realm="notes", error="insufficient_scope", error_description="This token may only read", scope="write""#])

    /// 428 when a write omits its precondition, which would risk a lost update.
    static let preconditionRequired = HTTPError(
        428, code: "precondition_required",
        message: "Send If-None-Match: * to create a note or If-Match: \"rev\" to change it, so no edit is lost.")
}

extension NoteStoreError: HTTPAnswerable {
    var httpError: HTTPError {
        switch self {
        case .notFound:
            .noteNotFound
        case .pathTaken(let path):
            HTTPError(409, code: "path_taken", message: "Another note already has the path \(path) (paths are compared ignoring case).")
        case .tooLarge(let limit, let size):
            HTTPError(413, code: "note_too_large", message: "A note may hold at most \(limit) bytes; this one has \(size).")
        case .kindMismatch(let existing):
            HTTPError(422, code: "kind_mismatch",
                      message: "This id belongs to \(existing == .note ? "a note" : "an attachment"); an entry keeps its kind (delete it and create a new one).")
        case .resyncRequired:
            HTTPError(410, code: "resync_required",
                      message: "This cursor is older than the deletions the server keeps; sync again from the beginning (since=0).")
        }
    }
}

extension PublicationError: HTTPAnswerable {
    /// A note the caller does not have cannot be published: 404, as for any missing note.
    var httpError: HTTPError {
        switch self {
        case .noteNotFound: .noteNotFound
        }
    }
}
