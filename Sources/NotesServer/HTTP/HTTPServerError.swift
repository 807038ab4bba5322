import Foundation

/// Why the HTTP server could not start, with a message an operator can act on.
///
/// Thrown only by `HTTPServer.start()`; serving itself never throws (network trouble becomes
/// 4xx/5xx answers or closed connections, never an error that escapes).
struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The closed set of start failures, for callers that branch (exit codes, retries).
    enum Code: Sendable, Equatable {
        /// The host is not an IPv4/IPv6 literal or `localhost`.
        case invalidAddress
        /// Another process (or server) already listens on the address.
        case addressInUse
        /// The socket could not be bound for another reason (permissions, foreign address).
        case cannotListen
        /// TLS was requested but libmicrohttpd was built without it, or only half of cert/key given.
        case tlsUnavailable
        /// libmicrohttpd refused the TLS certificate or key.
        case tlsRejected
        /// A configuration value is out of range.
        case invalidConfiguration
        /// `start()` was called on a server that is running or has been shut down.
        case notStartable
        /// libmicrohttpd failed for a reason it does not report.
        case startFailed
    }

    /// Which failure this is.
    let code: Code
    /// A complete sentence, e.g. `cannot listen on 127.0.0.1:8080: address in use`.
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }
    var errorDescription: String? { message }

    /// Builds the error for a failed `bind(2)`, naming the address and the reason in plain words.
    static func bindFailure(address: String, errno code: Int32) -> HTTPServerError {
        switch code {
        case EADDRINUSE:
            return HTTPServerError(.addressInUse, "cannot listen on \(address): address in use")
        case EACCES:
            return HTTPServerError(.cannotListen, "cannot listen on \(address): permission denied (ports below 1024 need privileges)")
        case EADDRNOTAVAIL:
            return HTTPServerError(.cannotListen, "cannot listen on \(address): address not available on this machine")
        default:
            return HTTPServerError(.cannotListen, "cannot listen on \(address): \(String(cString: strerror(code)))")
        }
    }
}
