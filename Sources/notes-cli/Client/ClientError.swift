import Foundation

/// Why talking to the server failed, with what went wrong underneath kept intact: the
/// transport's failure (refused, timed out, lost, too slow), the server's HTTP status with its
/// error code and message, or the answer the client refused to take.
///
/// The transport, `APIClient` and the sync remote throw this; they never pick an exit code or
/// word a sentence for the user. Both are chosen once, at the top, in `CLI.outcome(of:)`, so a
/// caller that needs to react to a failure (offline `notes status`, a 404 meaning "no such
/// note") matches the case, not a number.
enum ClientError: Error, Sendable {
    /// The stored session is over: expired, revoked, or ended by another `notes` process
    /// (a logout, or a refresh the server answered with `invalid_grant`).
    case sessionEnded
    /// The server would not renew the session, though not with the definitive `invalid_grant`
    /// (the stored tokens are kept); this run cannot go on.
    case renewalRefused(APIStatusError)
    /// The server refused the personal token in `NOTES_TOKEN` (expired, revoked or unknown).
    case tokenRefused
    /// No answer came: the connection never opened, went quiet, dropped, or the answer did not
    /// finish within the deadline (`cause.kind` tells which).
    case unreachable(server: ServerURL, cause: TransportError)
    /// The request failed for another transport reason (TLS, a malformed answer, ...).
    case transportFailed(server: ServerURL, cause: TransportError)
    /// The server answered with a non-2xx status: its code and message are in the error.
    case status(APIStatusError)
    /// The answer grew past its bound; reading stopped there.
    case answerTooLarge(TransportError)
    /// The server answered with a redirect, which is never followed (the token would go along).
    case redirectRefused(TransportError)
    /// Downloaded content did not hash to what the server said it hashes to.
    case contentMismatch(path: String)
    /// Downloaded content is over the server's own published note limit.
    case noteOverLimit(path: String, bytes: Int, limit: Int)
    /// A 2xx answer whose body could not be decoded as the expected type.
    case answerNotUnderstood(what: String, reason: String)
    /// An answer that decoded but breaks the protocol (a feed that makes no progress, a note
    /// without its content, a batch with the wrong number of results): the sentence says which.
    case protocolViolation(String)
    /// No URL can be made for `path` on `server` (a client-side fault, nothing was sent).
    case invalidRequestPath(path: String, server: ServerURL)

    /// The error for a transport failure that retrying did not (or could not) get past.
    init(server: ServerURL, transport error: TransportError) {
        switch error.kind {
        case .cannotConnect, .timedOut, .connectionLost, .deadlineExceeded: self = .unreachable(server: server, cause: error)
        case .redirected: self = .redirectRefused(error)
        case .tooLarge: self = .answerTooLarge(error)
        case .other: self = .transportFailed(server: server, cause: error)
        }
    }

    /// Whether the session (or token) is finished for this run: signing in again is the way on.
    var endsSession: Bool {
        switch self {
        case .sessionEnded, .renewalRefused, .tokenRefused: true
        default: false
        }
    }

    /// Whether the server answered that the space asked about is not one the account can read:
    /// it was deleted, or the account was removed from it. Definitive, as a refused session is.
    var losesSpace: Bool {
        apiStatus?.code == "space_not_found"
    }

    /// Whether the server could not be reached at all (the offline case).
    var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// The server's non-2xx answer, when that is what this is.
    var apiStatus: APIStatusError? {
        if case .status(let error) = self { return error }
        return nil
    }
}

extension ClientError: CustomStringConvertible {
    /// The user's sentence, as `CLI.outcome(of:)` words it (so an error interpolated into a
    /// warning reads the same as one reported at exit).
    var description: String { CLI.outcome(of: self).sentence }
}
