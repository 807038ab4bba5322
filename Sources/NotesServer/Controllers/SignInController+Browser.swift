import Foundation
import NotesCore

/// What tells a browser sign-in with a provider from a command-line one, and how it ends.
enum BrowserSignIn {
    /// Stored as the sign-in's client redirect URI. A command line's is always an `http`
    /// loopback URL (`LoopbackRedirect.validate`), so this value can never be one: the stored
    /// state alone says which flow its callback finishes.
    static let marker = "web:"

    /// Holds the sign-in's `state` in the browser that started it, for its callback only
    /// (`Path=/auth/oidc`, `HttpOnly`, `SameSite=Lax` so the provider's redirect back carries
    /// it). The callback must present the same state in the cookie and in the URL: a callback
    /// URL made in someone else's browser (to sign a victim into the attacker's account) finds
    /// no cookie, or another state, and is refused.
    static let cookie = "notes_oidc"
    static let cookiePath = "/auth/oidc"

    /// Why a browser sign-in ended without a session: a code in the sign-in page's URL, which
    /// maps it to a sentence (so no provider text is ever echoed into the page).
    enum Failure: String, Sendable, CaseIterable {
        case denied
        case expired
        case otherBrowser = "other-browser"
        case unavailable
        case refused
        case noAccount = "no-account"
        case disabled
        case unknownProvider = "unknown-provider"

        /// The sentence on the sign-in page; `provider` is the display name, when known.
        func message(provider: String?) -> String {
            let name = provider ?? "the identity provider"
            return switch self {
            case .denied: "Sign-in was cancelled or denied at \(name). You are not signed in."
            case .expired: "That sign-in link is not valid: it was already used, has expired, or did not come from this server. Please start again."
            case .otherBrowser: "That sign-in was started in another browser or tab and cannot finish here. Please start again."
            case .unavailable: "\(name) cannot be reached or did not answer properly. Try again later, or sign in with your password."
            case .refused: "\(name)'s answer failed this server's checks, so it was refused. Please start again."
            case .noAccount: "No account here is linked to your \(name) identity. Ask the server's administrator to link it."
            case .disabled: "This account is disabled. Ask the server's administrator to enable it."
            case .unknownProvider: "This server has no such identity provider."
            }
        }
    }

    /// The state the browser's sign-in cookie holds, if any.
    static func cookieState(in request: HTTPRequest) -> String? {
        WebCookie.value(cookie, in: request).flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension PendingSignIn {
    /// Whether this sign-in was started by the web app's sign-in page (not `notes login --web`).
    var isBrowserSignIn: Bool { clientRedirectURI == BrowserSignIn.marker }
}

/// Sign-in with an identity provider in the browser: `GET /auth/oidc/start?provider=ID[&next=PATH]`
/// sends the browser to the provider with the same state, nonce and PKCE as the command-line
/// flow (one `SignInStore` row, marked as a browser's), and the shared callback checks the ID
/// token the same way, finds or creates the account by the same policy, and starts a browser
/// session exactly as the password form does.
///
/// The start is a GET, not a form post: it changes nothing but a short-lived row, and at worst
/// (a link on another site) sends a person to their own provider to sign in to their own
/// account. What must not be forgeable is the *end*, and that is bound to the browser by the
/// state cookie; a GET also lets the sign-in page offer providers as plain links, working
/// without JavaScript and without the sign-in form's own secret (whose cookie is scoped to
/// `/sign-in`).
extension SignInController {
    func startInBrowser(_ request: HTTPRequest) -> HTTPOutcome {
        let next = request.query["next"].flatMap(WebPath.init(returnedPath:))
        guard let id = request.query["provider"], let provider = settings.provider(id), let client = clients[id],
              let callback = settings.callbackURL else {
            return .now(browserFailure(.unknownProvider, provider: nil, next: next, request))
        }
        let requestID = request.id
        return .later {
            do {
                let metadata = try await client.readyForSignIn()
                let (state, nonce, verifier) = try signIns.begin(provider: provider.id, clientRedirectURI: BrowserSignIn.marker,
                                                                 clientCodeChallenge: "", clientState: next?.value ?? "/")
                let location = try metadata.authorizationURL(for: provider, callback: callback, state: state, nonce: nonce,
                                                             verifier: verifier)
                var response = HTTPResponse(status: 302, headers: ["Location": location, "Cache-Control": "no-store",
                                                                   "Referrer-Policy": "no-referrer"])
                response.headers.add(name: "Set-Cookie", value: WebCookie.set(BrowserSignIn.cookie, state, secure: request.isSecure,
                                                                              path: BrowserSignIn.cookiePath, maxAge: signIns.stateLifetimeSeconds))
                return response
            } catch let error as ProviderError {
                log("req=\(requestID) browser sign-in with \(provider.id) could not start: \(error)")
                return browserFailure(.unavailable, provider: provider, next: next, request)
            } catch {
                return WebResponse.error(HTTPError.answer(for: error, requestID: requestID, log: log), viewer: nil)
            }
        }
    }

    /// The callback of a sign-in the web app started (`pending.isBrowserSignIn`), whose state
    /// the browser's cookie must hold too.
    func finishInBrowser(_ request: HTTPRequest, pending: PendingSignIn, state: String) -> HTTPOutcome {
        let next = WebPath(returnedPath: pending.clientState) ?? WebPath("/")
        let provider = settings.provider(pending.provider)
        guard let held = BrowserSignIn.cookieState(in: request), ConstantTime.equal(Array(held.utf8), Array(state.utf8)) else {
            log("req=\(request.id) browser sign-in refused: its callback came to a browser that did not start it")
            return .now(browserFailure(.otherBrowser, provider: provider, next: next, request))
        }
        guard let provider, let client = clients[provider.id], let callback = settings.callbackURL else {
            return .now(browserFailure(.unknownProvider, provider: nil, next: next, request))
        }
        let query = request.query
        if let error = query["error"] {
            let denied = error == "access_denied"
            log("req=\(request.id) browser sign-in with \(provider.id) ended at the provider: \(denied ? "access_denied" : "an error")")
            return .now(browserFailure(denied ? .denied : .unavailable, provider: provider, next: next, request))
        }
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            return .now(browserFailure(.unavailable, provider: provider, next: next, request))
        }
        let requestID = request.id
        return .later {
            do {
                let claims = try await client.signIn(code: code, verifier: pending.verifier, redirectURI: callback.absoluteString,
                                                     nonce: pending.nonce)
                let user = try identities.account(for: claims, provider: provider)
                guard !user.disabled else {
                    log("req=\(requestID) browser sign-in with \(provider.id) refused: the account \(user.username) is disabled")
                    return browserFailure(.disabled, provider: provider, next: next, request)
                }
                // Exactly what the password form does: a browser session, its cookie, then on.
                let secret = try sessions.createBrowserSession(userID: user.id, device: SignInPages.deviceName(request))
                log("req=\(requestID) signed in \(user.username) in a browser with \(provider.id)")
                var response = WebResponse.redirect(next)
                response.headers.add(name: "Set-Cookie", value: WebCookie.set(WebCookie.session, secret, secure: request.isSecure))
                response.headers.add(name: "Set-Cookie", value: WebCookie.clear(BrowserSignIn.cookie, secure: request.isSecure,
                                                                                path: BrowserSignIn.cookiePath))
                return response
            } catch let error as ProviderError {
                log("req=\(requestID) browser sign-in with \(provider.id) failed: \(error)")
                return browserFailure(.unavailable, provider: provider, next: next, request)
            } catch let error as IDTokenError {
                log("req=\(requestID) browser sign-in with \(provider.id) refused: \(error)")
                return browserFailure(.refused, provider: provider, next: next, request)
            } catch IdentityError.noAccount {
                log("req=\(requestID) browser sign-in with \(provider.id) refused: no linked account and sign-up is off")
                return browserFailure(.noAccount, provider: provider, next: next, request)
            } catch {
                return WebResponse.error(HTTPError.answer(for: error, requestID: requestID, log: log), viewer: nil)
            }
        }
    }

    /// Back to the sign-in page, which says why, with the sign-in's cookie gone and no session.
    func browserFailure(_ failure: BrowserSignIn.Failure, provider: OIDCProviderSettings?, next: WebPath?, _ request: HTTPRequest) -> HTTPResponse {
        var query = [("failed", failure.rawValue)]
        if let provider { query.append(("provider", provider.id)) }
        if let next, next.value != "/" { query.append(("next", next.value)) }
        var response = WebResponse.redirect(WebPath("/sign-in").query(query))
        response.headers.add(name: "Set-Cookie", value: WebCookie.clear(BrowserSignIn.cookie, secure: request.isSecure, path: BrowserSignIn.cookiePath))
        return response
    }
}
