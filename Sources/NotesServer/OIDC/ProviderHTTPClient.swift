import Foundation
import NotesCore

/// The server's outgoing HTTP to identity providers, on the server's libcurl client
/// (`OutgoingHTTP`), bounded three ways: a deadline for the whole exchange, its redirects
/// included; a size limit on the answer (checked against its `Content-Length` and again as bytes
/// arrive, so a huge answer is cut off, not buffered); and redirects followed only for a GET and
/// only within the same origin (scheme, host, port), at most `maxRedirects` of them.
struct ProviderHTTPClient: Sendable {
    struct Answer: Sendable {
        let status: Int
        let body: Data
    }

    /// One request to a provider.
    struct Request: Sendable {
        var method = "GET"
        var url: URL
        var headers: [String: String] = [:]
        var body: Data?
    }

    /// The most same-origin redirects one request follows.
    static let maxRedirects = 5

    /// Sends `request` and collects the answer.
    /// - Parameters:
    ///   - label: names the request in errors (`discovery`, `jwks`, `token`).
    ///   - timeoutSeconds: the deadline for the whole exchange.
    ///   - maxBytes: the largest answer body accepted.
    /// - Throws: `ProviderError`.
    func send(_ request: Request, label: String, timeoutSeconds: Int, maxBytes: Int) async throws(ProviderError) -> Answer {
        guard case .success(let client) = OutgoingHTTP.client else { throw .unreachable(label) }
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        let origin = Self.origin(of: request.url)
        var url = request.url
        for _ in 0...Self.maxRedirects {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timedOut(label) }
            let exchange = CurlRequest(method: request.method, url: url.absoluteString, headers: request.headers,
                                       body: request.body.map { .bytes($0) }, maxResponseBytes: maxBytes,
                                       idleTimeout: remaining, deadline: remaining)
            switch await client.perform(exchange) {
            case .success(let answer):
                // A redirect without a `Location` goes nowhere.
                guard !(300..<400).contains(answer.status) else { throw .redirected(label) }
                return Answer(status: answer.status, body: answer.body)
            case .failure(let failure) where failure.kind == .redirected:
                guard request.method == "GET", let next = URL(string: failure.detail, relativeTo: url)?.absoluteURL,
                      Self.origin(of: next) == origin else { throw .redirected(label) }
                url = next
            case .failure(let failure):
                throw ProviderError(OutgoingFailure(failure), label)
            }
        }
        throw .redirected(label)
    }

    /// `scheme://host:port`, the unit a redirect may not leave.
    static func origin(of url: URL?) -> String {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return "" }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
