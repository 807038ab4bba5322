import Foundation
import NotesCore

extension APIClient {
    /// Sends one request, retrying what is safe to retry: a connection that never opened (for
    /// any request, since nothing was sent), and for idempotent requests also timeouts, dropped
    /// connections, 5xx and 429, with bounded jittered backoff that honours `Retry-After`.
    ///
    /// Returns whatever HTTP answer finally came (the caller judges the status).
    /// - Throws: `ClientError` (`.unreachable` and the like) when no usable answer came after the retries.
    nonisolated func sendRetrying(_ request: APIRequest, bearer: String?) async throws -> HTTPResponse {
        guard let url = server.url(path: request.path, query: request.query) else {
            throw ClientError.invalidRequestPath(path: request.path, server: server)
        }
        var http = HTTPRequest(method: request.method, url: url, headers: request.headers, body: request.body,
                               maxResponseBytes: request.maxResponseBytes ?? ResponseBudget.defaultMaxBytes)
        http.bodyFile = request.bodyFile
        http.serverHold = request.serverHold
        http.bodySink = request.bodySink
        http.headers["Accept"] = request.accept
        if let bearer { http.headers["Authorization"] = "Bearer \(bearer)" }
        var attempt = 1
        while true {
            let wait: Double
            do {
                let response = try await transport.send(http)
                // A failed answer never reaches a sink, so even a streamed request is retried after one.
                guard request.idempotent, RetryPolicy.isRetryable(status: response.status),
                      attempt < retryPolicy.maxAttempts else { return response }
                let retryAfter = RetryPolicy.retryAfterSeconds(response.header("Retry-After"))
                // A server asking for a long pause gets an answer now rather than a hung command.
                if let retryAfter, retryAfter > retryPolicy.maxRetryAfter { return response }
                wait = retryPolicy.delay(beforeRetry: attempt, retryAfter: retryAfter)
            } catch {
                // A redirect, an oversized answer or a server that trickles past the deadline
                // would do the same again: those are reported at once.
                let transient: Set<TransportError.Kind> = [.timedOut, .connectionLost]
                // A streamed answer cut off midway may have reached its sink in part: its caller resumes it.
                let safe = error.kind == .cannotConnect || (request.idempotent && request.bodySink == nil && transient.contains(error.kind))
                guard safe, attempt < retryPolicy.maxAttempts else { throw ClientError(server: server, transport: error) }
                wait = retryPolicy.delay(beforeRetry: attempt, retryAfter: nil)
            }
            try await Task.sleep(for: .milliseconds(Int((wait * 1000).rounded())))
            attempt += 1
        }
    }
}
