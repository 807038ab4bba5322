import Foundation
import NotesCore
import Synchronization
@testable import notes_cli

/// An in-memory stand-in for the server's auth endpoints, plugged in as the client's transport,
/// so the client's refresh rules can be tested with exact control over each answer.
///
/// It rotates refresh tokens like the real server, counts refresh calls, and can be told to
/// fail in the ways the client must survive (network down during refresh, every token refused,
/// a scripted sequence of statuses).
final class ClientFakeServer: HTTPTransport {
    struct State {
        var validAccess: Set<String> = []
        var currentRefresh = "nrt_0"
        var issued = 0
        var refreshCalls = 0
        var requests: [String] = []
        /// Answered (in order) before normal handling of non-auth requests.
        var scripted: [HTTPResponse] = []
        var refreshFailsWithNetwork = false
        var rejectEveryAccessToken = false
        var expiresIn = 3600
    }

    let state = Mutex(State())
    /// How long a refresh takes, so concurrent requests pile up behind it.
    let refreshDelay: Duration

    init(refreshDelay: Duration = .milliseconds(50)) {
        self.refreshDelay = refreshDelay
    }

    /// Issues a fresh access token (and makes `refresh` the current refresh token).
    func issueSession(refresh: String = "nrt_0") -> String {
        state.withLock { state in
            state.issued += 1
            let access = "nat_\(state.issued)"
            state.validAccess.insert(access)
            state.currentRefresh = refresh
            return access
        }
    }

    func expireAllAccessTokens() {
        state.withLock { $0.validAccess.removeAll() }
    }

    var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    var requests: [String] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        state.withLock { $0.requests.append("\(request.method) \(path)") }
        if path == "/v1/auth/refresh" { return try await refresh(request) }
        if let scripted = state.withLock({ $0.scripted.isEmpty ? nil : $0.scripted.removeFirst() }) { return scripted }
        let bearer = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
        let authorized = state.withLock { state in
            bearer.map { state.validAccess.contains($0) && !state.rejectEveryAccessToken } ?? false
        }
        guard authorized else { return Self.error(401, "invalid_token", "The access token is expired.") }
        let user = UserResource(id: 1, username: "ada", createdAt: "2026-01-01T00:00:00.000Z")
        return HTTPResponse(status: 200, headers: [:], body: try WireJSON.encoder().encode(user))
    }

    private func refresh(_ request: HTTPRequest) async throws -> HTTPResponse {
        state.withLock { $0.refreshCalls += 1 }
        try await Task.sleep(for: refreshDelay)
        if state.withLock({ $0.refreshFailsWithNetwork }) {
            throw TransportError(kind: .cannotConnect, description: "connection refused")
        }
        let presented = try WireJSON.decoder().decode(RefreshRequest.self, from: request.body ?? Data()).refreshToken
        let answer: TokenResponse? = state.withLock { state in
            guard presented == state.currentRefresh else { return nil }
            state.issued += 1
            let access = "nat_\(state.issued)"
            state.validAccess.insert(access)
            state.currentRefresh = "nrt_\(state.issued)"
            return TokenResponse(accessToken: access, expiresIn: state.expiresIn, refreshToken: state.currentRefresh,
                                 user: UserResource(id: 1, username: "ada", createdAt: "2026-01-01T00:00:00.000Z"))
        }
        guard let answer else { return Self.error(401, "invalid_grant", "The refresh token is not valid.") }
        return HTTPResponse(status: 200, headers: [:], body: try WireJSON.encoder().encode(answer))
    }

    static func error(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: (try? WireJSON.encoder().encode(APIErrorBody(code: code, message: message))) ?? Data())
    }
}

/// A quick retry policy so tests of retries take milliseconds.
extension RetryPolicy {
    static let fast = RetryPolicy(maxAttempts: 4, baseDelay: 0.001, maxDelay: 0.004, maxRetryAfter: 0.05)
}

/// A session for `server` whose access token expires `expiresIn` seconds from now.
func makeSession(server: ServerURL, access: String, refresh: String, expiresIn: Double, lifetime: Double = 3600) -> StoredSession {
    StoredSession(server: server.string, username: "ada", accessToken: access,
                  accessExpiresAt: Date().timeIntervalSince1970 + expiresIn, accessLifetime: lifetime, refreshToken: refresh)
}
