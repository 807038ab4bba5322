import Foundation
import NotesCore

extension APIClient {
    /// Sends one request, retrying what is safe to retry: a connection that never opened (for
    /// any request, since nothing was sent), and for idempotent requests also timeouts, dropped
    /// connections, 5xx and 429, with bounded jittered backoff that honours `Retry-After`.
    ///
    /// Returns whatever HTTP answer finally came (the caller judges the status).
    /// - Throws: `CLIError` exit 5 when the server could not be reached after the retries.
    nonisolated func sendRetrying(_ request: APIRequest, bearer: String?) async throws -> HTTPResponse {
        guard let url = server.url(path: request.path, query: request.query) else {
            throw CLIError.failure("cannot build a URL for \(request.path) on \(server)")
        }
        var http = HTTPRequest(method: request.method, url: url, headers: request.headers, body: request.body,
                               maxResponseBytes: request.maxResponseBytes ?? ResponseBudget.defaultMaxBytes)
        http.headers["Accept"] = request.accept
        if let bearer { http.headers["Authorization"] = "Bearer \(bearer)" }
        var attempt = 1
        while true {
            let wait: Double
            do {
                let response = try await transport.send(http)
                guard request.idempotent, RetryPolicy.isRetryable(status: response.status),
                      attempt < retryPolicy.maxAttempts else { return response }
                let retryAfter = RetryPolicy.retryAfterSeconds(response.header("Retry-After"))
                // A server asking for a long pause gets an answer now rather than a hung command.
                if let retryAfter, retryAfter > retryPolicy.maxRetryAfter { return response }
                wait = retryPolicy.delay(beforeRetry: attempt, retryAfter: retryAfter)
            } catch let error as TransportError {
                // A redirect, an oversized answer or a server that trickles past the deadline
                // would do the same again: those are reported at once.
                let transient: Set<TransportError.Kind> = [.timedOut, .connectionLost]
                let safe = error.kind == .cannotConnect || (request.idempotent && transient.contains(error.kind))
                guard safe, attempt < retryPolicy.maxAttempts else { try unreachable(error) }
                wait = retryPolicy.delay(beforeRetry: attempt, retryAfter: nil)
            }
            try await Task.sleep(for: .milliseconds(Int((wait * 1000).rounded())))
            attempt += 1
        }
    }

    private nonisolated func unreachable(_ error: TransportError) throws -> Never {
        switch error.kind {
        case .other: throw CLIError.failure("request to \(server) failed: \(error.description)")
        case .redirected: throw CLIError.failure(error.description)
        case .tooLarge: throw ResponseTooLarge(message: error.description)
        case .deadlineExceeded: throw CLIError(.serverUnreachable, "\(server) is too slow: \(error.description)")
        case .cannotConnect, .timedOut, .connectionLost:
            throw CLIError(.serverUnreachable, "cannot reach \(server): \(error.description)")
        }
    }
}

/// An answer past its bound. `APIClient.send` catches it to ask for the server's published
/// limits once (they may allow larger answers) before giving up; anywhere else it is a failure.
struct ResponseTooLarge: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}
