import Foundation
import NotesCore

/// Sign-in through an identity provider (OpenID Connect authorization code flow with PKCE) for
/// the command-line client (RFC 8252, loopback redirect):
///
/// 1. `GET /auth/cli/start` — the client sends the browser here with its loopback redirect, its
///    own PKCE challenge and state; the server records a sign-in with its own state, nonce and
///    PKCE verifier and redirects to the provider.
/// 2. `GET /auth/oidc/callback` — the provider sends the browser back; the server exchanges the
///    code, checks the ID token, finds (or creates) the account, and redirects to the client's
///    loopback with a one-time code and the client's state.
/// 3. `POST /v1/auth/token` — the client exchanges the code with its PKCE verifier for an
///    ordinary session.
///
/// The web app's sign-in page uses the same flow with its own start and a browser session at
/// the end (`SignInController+Browser.swift`); the callback tells the two apart by the stored state.
///
/// Codes and states travel only in query strings, which the server never logs (its request
/// line has the path alone), and in `Location` headers, which it does not log either.
struct SignInController: Sendable {
    let settings: SignInSettings
    let clients: [String: OIDCProviderClient]
    let signIns: SignInStore
    let identities: IdentityStore
    let users: UserStore
    let sessions: SessionStore
    /// The device authorization grant (`notes login --device`), which shares the token endpoint.
    let devices: DeviceController
    let log: @Sendable (String) -> Void

    init(settings: SignInSettings, http: ProviderHTTPClient, database: ServerDatabase, clock: ServerClock,
         users: UserStore, sessions: SessionStore, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        var clients: [String: OIDCProviderClient] = [:]
        for provider in settings.providers {
            clients[provider.id] = OIDCProviderClient(settings: provider, http: http, clock: clock)
        }
        self.clients = clients
        self.signIns = SignInStore(database: database, clock: clock)
        self.identities = IdentityStore(database: database, clock: clock)
        self.users = users
        self.sessions = sessions
        self.devices = DeviceController(devices: DeviceCodeStore(database: database, clock: clock), users: users, sessions: sessions,
                                        publicURL: settings.publicURL)
        self.log = log
    }

    func register(in router: inout Router) {
        router.add("GET", "/v1/auth/providers", access: .open) { _ in
            .now(.wire(SignInProvidersResponse(providers: settings.providers.map { .init(id: $0.id, name: $0.displayName) })))
        }
        router.add("GET", "/auth/cli/start", access: .open) { context in
            try start(context.request)
        }
        router.add("GET", "/auth/oidc/start", access: .open) { context in
            startInBrowser(context.request)
        }
        router.add("GET", "/auth/oidc/callback", access: .open) { context in
            try callback(context.request)
        }
        router.add("POST", "/v1/auth/token", access: .open) { context in
            switch try context.decode(GrantType.self).grantType {
            case "authorization_code": return .now(try exchange(try context.decode(TokenGrantRequest.self)))
            case DeviceTokenRequest.grantType: return .now(try devices.exchange(try context.decode(DeviceTokenRequest.self)))
            default: throw HTTPError.badRequest("grant_type must be authorization_code or \(DeviceTokenRequest.grantType).",
                                                code: "unsupported_grant_type")
            }
        }
        devices.register(in: &router)
    }

    // MARK: Step 1: to the provider

    private func start(_ request: HTTPRequest) throws -> HTTPOutcome {
        let query = request.query
        let id: String
        if let named = query["provider"] {
            id = named
        } else if settings.providers.count == 1 {
            id = settings.providers[0].id
        } else {
            throw HTTPError.badRequest(settings.providers.isEmpty ? "This server has no identity provider configured."
                                       : "Name the provider: one of \(settings.providers.map(\.id).joined(separator: ", ")).",
                                       code: "unknown_provider")
        }
        guard let provider = settings.provider(id), let client = clients[id], let callback = settings.callbackURL else {
            throw HTTPError.badRequest("This server has no identity provider by that name; GET /v1/auth/providers lists them.", code: "unknown_provider")
        }
        guard let redirectURI = query["redirect_uri"].flatMap(LoopbackRedirect.validate) else {
            throw HTTPError.badRequest("redirect_uri must be http://127.0.0.1:PORT/… or http://[::1]:PORT/… (a loopback address with a port).",
                                       code: "invalid_redirect_uri")
        }
        guard let challenge = query["code_challenge"], PKCE.isWellFormed(challenge) else {
            throw HTTPError.badRequest("code_challenge must be a PKCE S256 challenge (43 to 128 URL-safe characters).", code: "invalid_request")
        }
        guard query["code_challenge_method"] == nil || query["code_challenge_method"] == "S256" else {
            throw HTTPError.badRequest("Only the S256 code_challenge_method is supported.", code: "invalid_request")
        }
        guard let clientState = query["state"], LoopbackRedirect.isAcceptableState(clientState) else {
            throw HTTPError.badRequest("state must be 1 to 256 URL-safe characters.", code: "invalid_request")
        }
        let requestID = request.id
        return .later {
            do {
                let metadata = try await client.readyForSignIn()
                let (state, nonce, verifier) = try signIns.begin(provider: provider.id, clientRedirectURI: redirectURI,
                                                                 clientCodeChallenge: challenge, clientState: clientState)
                let location = try metadata.authorizationURL(for: provider, callback: callback, state: state, nonce: nonce,
                                                             verifier: verifier)
                return Self.redirect(to: location)
            } catch let error as ProviderError {
                // The redirect URI is known good: report there (RFC 6749 §4.1.2.1), so the waiting
                // command stops with the reason instead of waiting for a browser that will not come.
                log("req=\(requestID) sign-in with \(provider.id) could not start: \(error)")
                return Self.redirect(to: LoopbackRedirect.url(redirectURI, [
                    ("error", "temporarily_unavailable"),
                    ("error_description", "\(provider.displayName) cannot be reached right now (\(error)); try again later."),
                    ("state", clientState),
                ]))
            } catch {
                return .error(HTTPError.answer(for: error, requestID: requestID, log: log))
            }
        }
    }

    // MARK: Step 2: back from the provider

    private func callback(_ request: HTTPRequest) throws -> HTTPOutcome {
        let query = request.query
        // Set only in a browser that started a web sign-in: its failures go to the sign-in page.
        // A provider that leaves `state` out of an error answer is answered for that sign-in.
        let browserState = BrowserSignIn.cookieState(in: request)
        guard let state = query["state"].flatMap({ $0.isEmpty ? nil : $0 }) ?? (query["error"] != nil ? browserState : nil) else {
            if browserState != nil { return .now(browserFailure(.expired, provider: nil, next: nil, request)) }
            throw HTTPError.badRequest("The sign-in answer carries no state; start the sign-in again.", code: "invalid_state")
        }
        guard let pending = try signIns.take(state: state) else {
            log("req=\(request.id) sign-in callback with an unknown, used or expired state")
            if browserState != nil { return .now(browserFailure(.expired, provider: nil, next: nil, request)) }
            throw HTTPError.badRequest("This sign-in is unknown, already finished or expired; start it again.", code: "invalid_state")
        }
        if pending.isBrowserSignIn { return finishInBrowser(request, pending: pending, state: state) }
        guard let provider = settings.provider(pending.provider), let client = clients[pending.provider], let callback = settings.callbackURL else {
            return .now(toClient(pending, error: "server_error", "The identity provider of this sign-in is no longer configured."))
        }
        if let error = query["error"] {
            let denied = error == "access_denied"
            log("req=\(request.id) sign-in with \(provider.id) ended at the provider: \(denied ? "access_denied" : "an error")")
            return .now(toClient(pending, error: denied ? "access_denied" : "provider_error",
                                 denied ? "Sign-in was denied at \(provider.displayName)." : "\(provider.displayName) reported an error."))
        }
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            return .now(toClient(pending, error: "invalid_request", "\(provider.displayName) sent no code."))
        }
        let requestID = request.id
        return .later {
            await finish(pending, code: code, provider: provider, client: client, callback: callback.absoluteString, requestID: requestID)
        }
    }

    private func finish(_ pending: PendingSignIn, code: String, provider: OIDCProviderSettings, client: OIDCProviderClient,
                        callback: String, requestID: String) async -> HTTPResponse {
        do {
            let claims = try await client.signIn(code: code, verifier: pending.verifier, redirectURI: callback, nonce: pending.nonce)
            let user = try identities.account(for: claims, provider: provider)
            guard !user.disabled else {
                log("req=\(requestID) sign-in with \(provider.id) refused: the account \(user.username) is disabled")
                return toClient(pending, error: "access_denied", "This account is disabled; ask the server's administrator to enable it.")
            }
            let loginCode = try signIns.issueCode(userID: user.id, codeChallenge: pending.clientCodeChallenge, redirectURI: pending.clientRedirectURI)
            log("req=\(requestID) signed in \(user.username) with \(provider.id)")
            return Self.redirect(to: LoopbackRedirect.url(pending.clientRedirectURI, [("code", loginCode), ("state", pending.clientState)]))
        } catch let error as ProviderError {
            log("req=\(requestID) sign-in with \(provider.id) failed: \(error)")
            return toClient(pending, error: "provider_unavailable", "\(provider.displayName) could not complete the sign-in (\(error)).")
        } catch let error as IDTokenError {
            log("req=\(requestID) sign-in with \(provider.id) refused: \(error)")
            return toClient(pending, error: "invalid_id_token", "The sign-in was refused: \(error).")
        } catch IdentityError.noAccount {
            log("req=\(requestID) sign-in with \(provider.id) refused: no linked account and sign-up is off")
            return toClient(pending, error: "access_denied",
                            "No account here is linked to this \(provider.displayName) identity; ask the administrator to link it.")
        } catch {
            log("req=\(requestID) sign-in with \(provider.id) failed: internal error: \(error)")
            return toClient(pending, error: "server_error", "The server could not complete the sign-in.")
        }
    }

    /// The browser sent back to the client's loopback with an OAuth error (RFC 6749 §4.1.2.1),
    /// so the waiting command learns why and stops.
    private func toClient(_ pending: PendingSignIn, error: String, _ description: String) -> HTTPResponse {
        Self.redirect(to: LoopbackRedirect.url(pending.clientRedirectURI,
                                               [("error", error), ("error_description", description), ("state", pending.clientState)]))
    }

    private static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: ["Location": location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"])
    }

    // MARK: Step 3: code for a session

    /// The one field every grant has, read first to choose the body's shape.
    private struct GrantType: Decodable {
        let grantType: String
    }

    private func exchange(_ body: TokenGrantRequest) throws -> HTTPResponse {
        guard body.grantType == "authorization_code" else {
            throw HTTPError.badRequest("grant_type must be authorization_code or \(DeviceTokenRequest.grantType).", code: "unsupported_grant_type")
        }
        let userID: Int64
        do {
            userID = try signIns.redeem(code: body.code, verifier: body.codeVerifier, redirectURI: body.redirectUri)
        } catch LoginCodeError.invalidGrant(let message) {
            throw HTTPError(400, code: "invalid_grant", message: message)
        }
        guard let user = try users.find(id: userID) else { throw HTTPError(400, code: "invalid_grant", message: "The account no longer exists.") }
        guard !user.disabled else { throw AuthController.accountDisabled }
        let tokens = try sessions.create(userID: user.id, device: Label.clean(body.device ?? ""))
        return AuthController.tokenResponse(tokens, user: user)
    }
}
