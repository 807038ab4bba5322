import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// "Sign in with <provider>" in the web app, through the in-process application against a
/// scripted provider on loopback (discovery, token endpoint, keys): the whole flow to a browser
/// session, and each way it must end on the sign-in page with no session.
@Suite("Web: sign in with an identity provider")
struct WebSignInProviderTests {
    /// A provider whose token endpoint answers an ID token for the nonce of the last sign-in it
    /// was sent (read from the authorization URL), signed with the test RSA key.
    final class Provider: Sendable {
        /// What the handler reads, changed by the test as it goes.
        final class State: Sendable {
            let nonce = Mutex("")
            let discoveryStatus = Mutex(200)
            let port = Mutex(0)
            /// The ID token's `iat`, in seconds: the app's test clock, not the wall clock.
            let now = Mutex(0)
        }

        let state = State()
        let server: ScriptedHTTPServer

        init() throws {
            let state = self.state
            server = try ScriptedHTTPServer { request in
                let base = "http://127.0.0.1:\(state.port.withLock { $0 })"
                switch request.path {
                case "/.well-known/openid-configuration":
                    let status = state.discoveryStatus.withLock { $0 }
                    guard status == 200 else { return .json(status, "{}") }
                    return .json(200, #"{"issuer":"\#(base)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","jwks_uri":"\#(base)/jwks"}"#)
                case "/jwks":
                    return .json(200, TestSigningKey.jwks([TestKeys.rsa]))
                case "/token":
                    let now = state.now.withLock { $0 }
                    let token = TestKeys.rsa.sign(["iss": base, "sub": "carol-sub", "aud": "notes", "exp": now + 300, "iat": now,
                                                   "nonce": state.nonce.withLock { $0 }, "preferred_username": "carol"])
                    return .json(200, #"{"id_token":"\#(token)","token_type":"Bearer","access_token":"unused"}"#)
                default:
                    return .json(404, "{}")
                }
            }
            state.port.withLock { $0 = server.port }
        }

        var settings: OIDCProviderSettings {
            OIDCProviderSettings(id: "scripted", issuer: server.baseURL, clientID: "notes", clientSecret: nil, displayName: "Scripted ID",
                                 allowSignUp: true, trustVerifiedEmail: false, timeoutSeconds: 5, scopes: ["openid"])
        }

        func configure(_ configuration: inout ServerConfiguration) {
            configuration.signIn = SignInSettings(providers: [settings], publicURL: URL(string: "http://notes.test"))
        }
    }

    /// The query of a redirect's `Location`.
    static func query(of location: String?) throws -> [String: String] {
        let components = try #require(location.flatMap(URLComponents.init(string:)))
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    /// Presses "Sign in with Scripted ID": the provider's authorization URL's parameters.
    static func start(_ browser: WebBrowser, _ provider: Provider, next: String? = nil) async throws -> [String: String] {
        var sent = ["provider": "scripted"]
        if let next { sent["next"] = next }
        let answer = await browser.get("/auth/oidc/start", query: sent)
        try #require(answer.status == 302, "start answered \(answer.status): \(answer.body)")
        let location = try #require(answer.header("Location"))
        #expect(location.hasPrefix(provider.server.baseURL + "/authorize?"))
        let parameters = try query(of: location)
        provider.state.nonce.withLock { $0 = parameters["nonce"] ?? "" }
        return parameters
    }

    /// Whether the browser holds a session cookie.
    static func isSignedIn(_ browser: WebBrowser) -> Bool { browser.cookies["notes_session"] != nil }

    /// Follows a failure redirect to the sign-in page and returns it.
    static func signInPage(after answer: WebBrowser.Page, _ browser: WebBrowser) async throws -> WebBrowser.Page {
        let location = try #require(answer.header("Location"), "expected a redirect, got \(answer.status): \(answer.body)")
        #expect(location.hasPrefix("/sign-in?failed="))
        let page = await browser.get("/sign-in", query: try query(of: location))
        #expect(page.status == 200 && page.body.contains("id=\"password\""), "the sign-in page, with the password form")
        return page
    }

    @Test("the sign-in page offers one button per configured provider, and none without providers")
    func buttonsComeFromConfiguration() async throws {
        try await TestApp.with { app in
            #expect(!(await WebBrowser(app).get("/sign-in")).body.contains("Sign in with"))
        }
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            let page = await WebBrowser(app).get("/sign-in", query: ["next": "/account"])
            #expect(page.body.contains("href=\"/auth/oidc/start?provider=scripted&amp;next=%2Faccount\">Sign in with Scripted ID</a>"))
        }
    }

    @Test("signing in with a provider creates the account by policy and starts a browser session like the password form's")
    func signInStartsABrowserSession() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            provider.state.now.withLock { $0 = Int(app.clock.now / 1000) }
            let browser = WebBrowser(app)
            let sent = try await Self.start(browser, provider, next: "/account")
            #expect(sent["code_challenge_method"] == "S256" && sent["client_id"] == "notes")
            #expect(sent["redirect_uri"] == "http://notes.test/auth/oidc/callback")
            let state = try #require(sent["state"])
            #expect(browser.cookies["notes_oidc"] == state, "the state is bound to this browser")
            let back = await browser.get("/auth/oidc/callback", query: ["code": "provider-code", "state": state])
            #expect(back.status == 303)
            #expect(back.header("Location") == "/account")
            let cookie = try #require(back.setCookies.first { $0.hasPrefix("notes_session=") })
            #expect(Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }) == ["Path=/", "HttpOnly", "SameSite=Lax"])
            #expect(browser.cookies["notes_oidc"] == nil, "the state cookie is spent")
            let account = await browser.get("/account")
            #expect(account.status == 200 && account.body.contains("Account: carol"))
            #expect(try app.count("SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'carol' AND s.web_cookie_hash IS NOT NULL") == 1,
                    "a browser session, listed like a password sign-in's")
            // The callback is used once: presented again, it signs nobody in.
            let other = WebBrowser(app)
            other.setCookie("notes_oidc", state)
            let replay = await other.get("/auth/oidc/callback", query: ["code": "provider-code", "state": state])
            #expect(try await Self.signInPage(after: replay, other).body.contains("already used"))
            #expect(!Self.isSignedIn(other))
        }
    }

    @Test("a forged state lands on the sign-in page with a message and no session")
    func forgedStateIsRefused() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            let browser = WebBrowser(app)
            _ = try await Self.start(browser, provider)
            let forged = Base64URL.encode(SecureRandom.bytes(count: 32))
            let answer = await browser.get("/auth/oidc/callback", query: ["code": "provider-code", "state": forged])
            #expect(answer.setCookies.allSatisfy { !$0.hasPrefix("notes_session=") })
            let page = try await Self.signInPage(after: answer, browser)
            #expect(page.body.contains("That sign-in link is not valid"))
            #expect(!Self.isSignedIn(browser))
            #expect(try app.count("SELECT count(*) FROM sessions") == 0)
            #expect(provider.server.requests.allSatisfy { $0.path != "/token" }, "a forged callback never reaches the token endpoint")
        }
    }

    @Test("a callback opened in a browser that did not start the sign-in is refused (no login CSRF)")
    func callbackInAnotherBrowserIsRefused() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            let attacker = WebBrowser(app)
            let state = try #require(try await Self.start(attacker, provider)["state"])
            // The attacker hands the provider's answer to a victim instead of following it.
            let victim = WebBrowser(app)
            let answer = await victim.get("/auth/oidc/callback", query: ["code": "provider-code", "state": state])
            #expect(try await Self.signInPage(after: answer, victim).body.contains("started in another browser"))
            #expect(!Self.isSignedIn(victim))
            #expect(try app.count("SELECT count(*) FROM sessions") == 0)
        }
    }

    @Test("denied consent, with or without the state, lands on the sign-in page with a message and no session")
    func deniedConsentIsReported() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            let browser = WebBrowser(app)
            let state = try #require(try await Self.start(browser, provider)["state"])
            let answer = await browser.get("/auth/oidc/callback", query: ["error": "access_denied", "state": state])
            #expect(try await Self.signInPage(after: answer, browser).body.contains("cancelled or denied at Scripted ID"))
            #expect(!Self.isSignedIn(browser))
            // A provider that leaves the state out of its error (oidc-provider-mock does).
            _ = try await Self.start(browser, provider)
            let bare = await browser.get("/auth/oidc/callback", query: ["error": "access_denied"])
            #expect(try await Self.signInPage(after: bare, browser).body.contains("cancelled or denied"))
            #expect(try app.count("SELECT count(*) FROM sessions") == 0)
            #expect(try app.count("SELECT count(*) FROM sign_in_states") == 0, "each denied sign-in's state is spent")
        }
    }

    @Test("a provider that is down lands on the sign-in page with a message; an unknown provider too")
    func providerDownIsReported() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        provider.state.discoveryStatus.withLock { $0 = 503 }
        try await TestApp.with(provider.configure) { app in
            let browser = WebBrowser(app)
            let answer = await browser.get("/auth/oidc/start", query: ["provider": "scripted"])
            let down = try await Self.signInPage(after: answer, browser)
            #expect(down.body.contains("Scripted ID cannot be reached"))
            let unknown = try await Self.signInPage(after: await browser.get("/auth/oidc/start", query: ["provider": "nope"]), browser)
            #expect(unknown.body.contains("no such identity provider"))
            #expect(!Self.isSignedIn(browser))
        }
    }

    @Test("a provider that went down after its discovery was cached is checked before the redirect: the sign-in page says why, the command line gets the reason")
    func providerDownAfterDiscoveryIsReported() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        try await TestApp.with(provider.configure) { app in
            let browser = WebBrowser(app)
            _ = try await Self.start(browser, provider)
            provider.server.stop()
            try await Task.sleep(for: .milliseconds(200))  // its listener closes within one poll interval
            // Discovery is cached for an hour; the check that the provider answers, for seconds.
            app.clock.advance(seconds: 11)
            let answer = await browser.get("/auth/oidc/start", query: ["provider": "scripted"])
            #expect(answer.header("Location")?.hasPrefix(provider.server.baseURL) != true, "not sent to a provider that is down")
            #expect(try await Self.signInPage(after: answer, browser).body.contains("Scripted ID cannot be reached"))
            #expect(!Self.isSignedIn(browser))

            let command = await app.send("GET", "/auth/cli/start", query: [
                "provider": "scripted", "redirect_uri": "http://127.0.0.1:4711/callback", "state": "client-state",
                "code_challenge": String(repeating: "c", count: 43), "code_challenge_method": "S256"])
            let back = try Self.query(of: command.header("Location"))
            #expect(command.status == 302 && command.header("Location")?.hasPrefix("http://127.0.0.1:4711/callback?") == true, "\(command.status)")
            #expect(back["error"] == "temporarily_unavailable" && back["state"] == "client-state", "\(back)")
        }
    }
}
