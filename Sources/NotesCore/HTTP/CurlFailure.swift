/// Why a request got no usable HTTP answer, in the transport's terms; each caller words it for
/// its users.
public struct CurlFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The host (or the proxy) has no address: nothing was sent.
        case cannotResolve
        /// No connection could be opened (refused, no route): nothing was sent.
        case cannotConnect
        /// Nothing was sent or received for the request's idle timeout.
        case timedOut
        /// The exchange did not finish within the request's deadline.
        case deadlineExceeded
        /// The connection broke after the request may have reached the server.
        case connectionLost
        /// The server closed the connection without a byte of answer.
        case closedWithoutAnswer
        /// The answer was a redirect (`detail`: its `Location`); it is never followed.
        case redirected
        /// The answer body grew past the request's bound; reading stopped there.
        case tooLarge
        /// The request's sink refused the answer or a part of it.
        case refusedBySink
        /// The server's TLS certificate is not trusted here.
        case untrustedCertificate
        /// The TLS handshake failed other than on the certificate.
        case tlsFailed
        /// The caller cancelled the request.
        case cancelled
        /// Anything else (`detail`: libcurl's words for it).
        case other
    }

    public var kind: Kind
    /// The redirect's target for `.redirected`, libcurl's description otherwise (never a URL's
    /// credentials or a header's value).
    public var detail: String

    public init(kind: Kind, detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? "\(kind)" : "\(kind): \(detail)" }
}
