import NotesCore

/// Why a request the server sent to another service got no usable answer, in the terms its
/// operator acts on; each caller names the service and the request (`ObjectStorageError`,
/// `ProviderError`).
enum OutgoingFailure: Sendable, Equatable {
    /// No connection, a broken one, a failed TLS handshake or an untrusted certificate.
    case unreachable
    /// Nothing arrived for the idle timeout, or the whole exchange passed its deadline.
    case timedOut
    /// The answer was larger than the request allows.
    case tooLarge
    /// The answer was a redirect, which is not followed.
    case redirected

    init(_ failure: CurlFailure) {
        switch failure.kind {
        case .timedOut, .deadlineExceeded: self = .timedOut
        case .tooLarge: self = .tooLarge
        case .redirected: self = .redirected
        case .cannotResolve, .cannotConnect, .connectionLost, .closedWithoutAnswer, .untrustedCertificate, .tlsFailed,
             .refusedBySink, .cancelled, .other:
            self = .unreachable
        }
    }

    /// The sentence for a log line: `service` (e.g. "the object store") and the request `what`
    /// names, never a URL's query, a header's value or a credential.
    func sentence(_ service: String, _ what: String) -> String {
        switch self {
        case .unreachable: "\(service) could not be reached (\(what))"
        case .timedOut: "\(service) did not answer in time (\(what))"
        case .tooLarge: "\(service)'s answer was too large (\(what))"
        case .redirected: "\(service) redirected (\(what)), which is not followed"
        }
    }
}
