import Foundation
import NotesCore

/// The one authenticated HTTP client every command (and sync) talks to the server through.
///
/// An actor because it owns the session that many concurrent requests share: it signs each
/// request with the current access token, refreshes ahead of expiry, and on a 401 forces a
/// refresh and replays (at most `maxReplays` times). Refreshes are single-flight: the actor holds
/// the one in-flight refresh `Task`, and every request that needs a refresh meanwhile awaits it;
/// a 401 for a token that has already been replaced just replays with the new one. The session
/// itself, and the credentials file it lives in, belong to `SessionProvider`: the client asks
/// it for the session to sign with and hands it the outcome of each refresh.
/// Transport retries (network errors, 5xx, 429) live in `APIClient+Retry.swift`, the refresh
/// itself in `APIClient+Refresh.swift`.
actor APIClient {
    /// What the client presents to the server.
    enum Credential: Sendable {
        /// No token: login and health checks.
        case anonymous
        /// `NOTES_TOKEN`: a personal token, never refreshed.
        case personalToken(String)
        /// A session `notes login` stored in `store`, kept through a `SessionProvider`.
        case session(StoredSession, CredentialStore)
    }

    /// Replays after a 401 before giving up (each one after a forced refresh).
    static let maxReplays = 2

    nonisolated let server: ServerURL
    nonisolated let transport = CurlTransport.shared
    nonisolated let retryPolicy: RetryPolicy
    nonisolated let now: @Sendable () -> Date
    let credential: Credential
    /// The provider of the session for `.session` credentials; nil for the others.
    nonisolated let sessionProvider: SessionProvider?
    /// The refresh every waiter shares; nil when none is running.
    var refreshTask: Task<StoredSession, any Error>?
    /// The server's published limits, fetched at most once per process and only when needed
    /// (`ResponseBudget`); nil until then, and kept nil when the server would not say.
    var publishedLimits: ServerLimits?
    /// The one fetch of the limits, shared by concurrent callers; dropped when the server could
    /// not be reached, so a watcher started offline asks again rather than keeping the defaults.
    var limitsTask: Task<LimitsAnswer, Never>?

    /// What a fetch of `/v1/limits` learnt.
    enum LimitsAnswer: Sendable {
        case published(ServerLimits)
        /// The server answered but would not say: the defaults stand for this process.
        case unpublished
        /// No answer: ask again next time.
        case unreachable
    }

    /// The space whose notes this client's note requests address (`SpacePaths`); nil: the
    /// account's personal space, as `/v1/notes…` addresses it.
    nonisolated let space: Int64?

    init(server: ServerURL, credential: Credential, retryPolicy: RetryPolicy = .standard,
         now: @escaping @Sendable () -> Date = { Date() }, space: Int64? = nil) {
        self.server = server
        self.space = space
        self.credential = credential
        self.retryPolicy = retryPolicy
        self.now = now
        if case .session(let stored, let store) = credential {
            sessionProvider = SessionProvider(server: server, session: stored, store: store)
        } else {
            sessionProvider = nil
        }
    }

    /// The session in use, replaced by each refresh; nil without one or once it has ended.
    var session: StoredSession? { sessionProvider?.held }

    /// Adopts a newer session of the same account that another process stored (see
    /// `SessionProvider.adoptNewerSession()`): for long-lived clients, between rounds.
    /// - Returns: the adopted session, or nil when there is none newer (or no session at all).
    @discardableResult
    func adoptNewerSession() throws -> StoredSession? {
        try sessionProvider?.adoptNewerSession()
    }

    /// Sends `request` and returns the successful (2xx) answer.
    /// The answer body is bounded (`ResponseBudget`): past the bound for the server's default
    /// limits, the published limits are fetched once and the request sent again if they allow more.
    /// - Throws: `ClientError`: the session gone or the token refused, the server unreachable or
    ///   too slow, a redirect or an answer past its bound, and `.status` for every other non-2xx
    ///   answer. Never returns a failed answer.
    func send(_ request: APIRequest) async throws -> HTTPResponse {
        var request = request
        request.path = SpacePaths.path(request.path, inSpace: space)
        if request.maxResponseBytes == nil { request.maxResponseBytes = ResponseBudget.maxBytes(for: limits) }
        do {
            return try await sendReplaying(request)
        } catch ClientError.answerTooLarge(let cause) {
            // The default bound is the default limits'; a server publishing larger ones may send more.
            // A streamed answer is bounded by its caller, and part of it may have reached the sink.
            guard request.bodySink == nil, let bound = request.maxResponseBytes,
                  ResponseBudget.maxBytes(for: await fetchLimits()) > bound else { throw ClientError.answerTooLarge(cause) }
            request.maxResponseBytes = ResponseBudget.maxBytes(for: limits)
            return try await sendReplaying(request)
        }
    }

    /// The server's limits as far as known: the published ones once fetched, else the defaults.
    var limits: ServerLimits { publishedLimits ?? ResponseBudget.defaultLimits }

    /// Asks the server for its published limits (once per process, once it has answered) and
    /// returns what is known.
    func fetchLimits() async -> ServerLimits {
        let task = limitsTask ?? Task { () -> LimitsAnswer in
            var request = APIRequest("GET", "/v1/limits", authenticated: false)
            request.maxResponseBytes = ResponseBudget.smallMaxBytes
            guard let response = try? await self.sendRetrying(request, bearer: nil) else { return .unreachable }
            guard (200..<300).contains(response.status),
                  let decoded = try? WireJSON.decoder().decode(ServerLimits.self, from: response.body),
                  decoded.maxNoteBytes > 0, decoded.maxRequestBytes > 0 else { return .unpublished }
            return .published(decoded)
        }
        limitsTask = task
        switch await task.value {
        case .published(let fetched): publishedLimits = fetched
        case .unpublished: break
        case .unreachable: if limitsTask == task { limitsTask = nil }
        }
        return limits
    }

    /// `send` within the current response bound: signs, refreshes, replays after a 401.
    private func sendReplaying(_ request: APIRequest) async throws -> HTTPResponse {
        var replays = 0
        while true {
            let held = request.authenticated ? try await sessionForRequest() : nil
            let bearer: String? = switch credential {
            case .anonymous: nil
            case .personalToken(let token): request.authenticated ? token : nil
            case .session: held?.accessToken
            }
            let response = try await sendRetrying(request, bearer: bearer)
            if response.status == 401, request.authenticated, bearer != nil {
                if case .personalToken = credential {
                    throw ClientError.tokenRefused
                }
                guard let held, replays < Self.maxReplays else { throw Self.sessionExpired }
                replays += 1
                _ = try await refresh(replacing: held)
                continue
            }
            guard (200..<300).contains(response.status) else {
                throw ClientError.status(APIStatusError(response))
            }
            return response
        }
    }

    /// The failure every dead session ends in.
    static let sessionExpired = ClientError.sessionEnded

    /// The session to sign the next request with, refreshed first if it is about to expire.
    /// Nil for a personal token or anonymous client.
    private func sessionForRequest() async throws -> StoredSession? {
        guard let sessionProvider else { return nil }
        let held = try sessionProvider.current()
        guard held.needsRefresh(at: now()) else { return held }
        do {
            return try await refresh(replacing: held)
        } catch let error as ClientError where error.isUnreachable && !held.isExpired(at: now()) {
            // A refresh ahead of time failed on the network but the token still works for a
            // while: use it, and let the request itself report whether the server is there.
            return held
        }
    }

    /// Replaces `held` with a fresh session, sharing one refresh among all callers.
    /// Called ahead of expiry and after a 401 alike: either way `held` must not be used again.
    func refresh(replacing held: StoredSession) async throws -> StoredSession {
        guard let sessionProvider else { throw Self.sessionExpired }
        let current = try sessionProvider.current()
        if current.accessToken != held.accessToken {
            // Someone already replaced the token this caller used: replay with the new one.
            return current
        }
        if let refreshTask { return try await refreshTask.value }
        let task = Task { try await self.performRefresh(replacing: held) }
        refreshTask = task
        return try await task.value
    }
}
