import NotesCore

/// `/v1/auth/*` and `/v1/me`: sign-in, token refresh, sign-out and the current user.
struct AuthController: Sendable {
    let users: UserStore
    let sessions: SessionStore
    let passwords: PasswordWorker
    let throttle: LoginThrottle
    /// The server log: a login runs outside the router's error handling (as `.later` work), so
    /// it logs its own unexpected errors, in the router's format.
    let log: @Sendable (String) -> Void

    func register(in router: inout Router) {
        router.add("POST", "/v1/auth/login", access: .open) { context in
            let body = try context.decode(LoginRequest.self)
            // No account has a name or password this long: refuse at once, before any counting.
            guard body.password.utf8.count <= PasswordHash.maxPasswordBytes, UserStore.normalized(body.username).utf8.count <= UserStore.maxUsernameBytes else {
                throw Self.invalidCredentials
            }
            // Counted on the connection thread, so a throttled client never costs a password check.
            let attempt = try throttle.begin(username: body.username, address: context.request.remoteAddress)
            let requestID = context.request.id
            return .later { await login(body, attempt: attempt, requestID: requestID) }
        }
        router.add("POST", "/v1/auth/refresh", access: .open) { context in
            let body = try context.decode(RefreshRequest.self)
            let (userID, tokens) = try sessions.refresh(body.refreshToken)
            guard let user = try users.find(id: userID) else { throw SessionError.invalidGrant("The account no longer exists.") }
            return .now(Self.tokenResponse(tokens, user: user))
        }
        router.add("POST", "/v1/auth/logout", access: .read) { context in
            let caller = try context.caller()
            guard let sessionID = caller.sessionID else {
                throw HTTPError.badRequest("Personal access tokens are revoked with DELETE /v1/tokens/{id}, not logout.", code: "not_a_session")
            }
            try sessions.revoke(sessionID: sessionID)
            return .now(.noContent())
        }
        router.add("GET", "/v1/me", access: .read) { context in
            guard let user = try users.find(id: try context.caller().userID) else { throw HTTPError.invalidToken("is unknown") }
            return .now(.wire(user.resource))
        }
    }

    /// Checks the password off the HTTP threads. Unknown users and wrong passwords get the same
    /// answer after the same work, so they cannot be told apart; only someone who proved the
    /// password learns that the account is disabled. Any error
    /// that is not an `HTTPError` becomes a bare 500, logged with `requestID` like the router's.
    private func login(_ body: LoginRequest, attempt: LoginThrottle.Attempt, requestID: String) async -> HTTPResponse {
        do {
            let user = try users.find(username: body.username)
            let matches = try await passwords.verify(body.password, against: user?.passwordHash)
            guard matches, let user else {
                throttle.failed(attempt)
                throw Self.invalidCredentials
            }
            guard !user.disabled else { throw Self.accountDisabled }
            throttle.succeeded(attempt)
            await upgradeHash(of: body.password, for: user, requestID: requestID)
            // Only now, after the password matched, may the device's old session end; another
            // user's or an unknown token changes nothing and the answer does not say which.
            let tokens = try sessions.create(userID: user.id, device: Label.clean(body.device ?? ""), replacing: body.replacesRefreshToken)
            return Self.tokenResponse(tokens, user: user)
        } catch {
            return .error(HTTPError.answer(for: error, requestID: requestID, log: log))
        }
    }

    /// Re-hashes a password stored at an older cost, now that it is known to be right. Best
    /// effort: the sign-in goes on if it fails (a full disk, a busy pool), and the next one retries.
    private func upgradeHash(of password: String, for user: UserRecord, requestID: String) async {
        do {
            guard let upgraded = try await passwords.upgradedHash(of: password, replacing: user.passwordHash) else { return }
            try users.upgradePasswordHash(userID: user.id, from: user.passwordHash, to: upgraded)
        } catch {
            log("req=\(requestID) could not upgrade a password hash to today's cost: \(error)")
        }
    }

    static let invalidCredentials = HTTPError(401, code: "invalid_credentials", message: "The username or password is wrong.",
                                              headers: ["WWW-Authenticate": HTTPError.bearerChallenge])

    static let accountDisabled = HTTPError(403, code: "account_disabled",
                                           message: "This account is disabled; ask the server's administrator to enable it.")

    /// RFC 6749 §5.1: token answers must not be cached.
    static func tokenResponse(_ tokens: IssuedTokens, user: UserRecord) -> HTTPResponse {
        var response = HTTPResponse.wire(TokenResponse(accessToken: tokens.accessToken, expiresIn: tokens.accessExpiresIn,
                                                       refreshToken: tokens.refreshToken, user: user.resource))
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        return response
    }
}
