import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Browser sessions: the cookie's flags, what it may and may not open, and its lifetimes.
@Suite("Web sessions")
struct WebSessionTests {
    @Test("signing in sets an HttpOnly, SameSite=Lax, Path=/ session cookie, without Secure over plain HTTP")
    func cookieFlagsOverHTTP() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            let answer = try await browser.signIn()
            #expect(answer.status == 303)
            let cookie = try #require(answer.setCookies.first { $0.hasPrefix("notes_session=") })
            let flags = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(flags == ["Path=/", "HttpOnly", "SameSite=Lax"])
            #expect(await browser.get("/").body.contains("Your notes"))
        }
    }

    @Test("a request that came over HTTPS gets a Secure cookie")
    func cookieIsSecureOverHTTPS() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            browser.isSecure = true
            browser.origin = "https://notes.test"
            let cookie = try #require(try await browser.signIn().setCookies.first { $0.hasPrefix("notes_session=") })
            #expect(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.contains("Secure"))
        }
    }

    @Test("only a trusted proxy's X-Forwarded-Proto makes a request count as HTTPS")
    func forwardedProtoIsBelievedOnlyFromTrustedProxies() throws {
        let trusted = try #require(AddressRange("10.0.0.0/8"))
        #expect(ClientAddress.forwardedHTTPS(peer: "10.1.2.3", forwardedProto: ["https"], trusted: [trusted]))
        #expect(ClientAddress.forwardedHTTPS(peer: "10.1.2.3", forwardedProto: ["http, https"], trusted: [trusted]))
        #expect(!ClientAddress.forwardedHTTPS(peer: "10.1.2.3", forwardedProto: ["https, http"], trusted: [trusted]))
        #expect(!ClientAddress.forwardedHTTPS(peer: "203.0.113.9", forwardedProto: ["https"], trusted: [trusted]))
        #expect(!ClientAddress.forwardedHTTPS(peer: "10.1.2.3", forwardedProto: ["https"], trusted: []))
    }

    @Test("a session cookie never authenticates the JSON API")
    func cookieIsRefusedOnTheAPI() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            #expect(await browser.get("/").status == 200, "the cookie works on pages")
            for path in ["/v1/me", "/v1/notes", "/v1/tokens", "/v1/search"] {
                let answer = await browser.get(path, query: ["q": "x"])
                #expect(answer.status == 401, "\(path) answered \(answer.status)")
                #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            // Nor with the cookie's secret presented as a bearer token.
            let secret = try #require(browser.cookies["notes_session"])
            #expect(await browser.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(secret)"]).status == 401)
        }
    }

    @Test("wrong passwords and unknown users get the same refusal, and the API's throttle counts web sign-ins")
    func signInSharesTheAPIsThrottle() async throws {
        try await TestApp.with({ $0.loginLimits.perAccountAndAddress = 3 }) { app in
            let browser = WebBrowser(app)
            let wrong = try await browser.signIn(TestAccount.username, "not the password")
            let unknown = try await browser.signIn("nobody", "not the password")
            #expect(wrong.status == 401 && unknown.status == 401)
            #expect(wrong.body.contains("The username or password is wrong.") && unknown.body.contains("The username or password is wrong."))
            _ = try await browser.signIn(TestAccount.username, "still wrong")
            _ = try await browser.signIn(TestAccount.username, "wrong again")
            let throttled = try await browser.signIn()
            #expect(throttled.status == 429)
            #expect(throttled.header("Retry-After") != nil)
            #expect(try await app.login().status == 429, "the API sees the web's attempts")
        }
    }

    @Test("a browser session ends after its idle timeout, measured from its last use")
    func idleTimeout() async throws {
        try await TestApp.with({ $0.browserLifetimes = BrowserSessionLifetimes(idleSeconds: 3600, absoluteSeconds: 86_400) }) { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            app.clock.advance(seconds: 3000)
            #expect(await browser.get("/").body.contains("Your notes"), "used within the idle time")
            app.clock.advance(seconds: 3000)
            #expect(await browser.get("/").body.contains("Your notes"), "the last use restarted the idle time")
            app.clock.advance(seconds: 3700)
            let after = await browser.get("/account")
            #expect(after.status == 303 && after.header("Location")?.hasPrefix("/sign-in") == true)
            #expect(try app.count("SELECT count(*) FROM sessions WHERE web_cookie_hash IS NOT NULL AND revoked_at IS NOT NULL") == 1,
                    "the expired session was ended")
        }
    }

    @Test("a browser session ends at its absolute lifetime however active it is")
    func absoluteLifetime() async throws {
        try await TestApp.with({ $0.browserLifetimes = BrowserSessionLifetimes(idleSeconds: 3600, absoluteSeconds: 4 * 3600) }) { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            for _ in 0..<4 {
                app.clock.advance(seconds: 3000)
                #expect(await browser.get("/").body.contains("Your notes"))
            }
            app.clock.advance(seconds: 3000)
            #expect(await browser.get("/account").status == 303)
        }
    }

    @Test("a browser session is listed with the user's sessions and revoking it from another session signs that browser out")
    func browserSessionIsRevocableLikeADevice() async throws {
        try await TestApp.with { app in
            let laptop = WebBrowser(app), phone = WebBrowser(app)
            try await laptop.signIn()
            try await phone.signIn()
            #expect(try app.application.sessions.list(username: TestAccount.username).count == 2, "both are sessions of the existing kind")
            let account = await laptop.get("/account")
            let ids = account.body.components(separatedBy: "/account/sessions/").dropFirst().compactMap { Int64($0.prefix { $0.isNumber }) }
            #expect(ids.count == 2)
            let phoneSession = try #require(try app.application.sessions.list(username: TestAccount.username).map(\.id).max())
            #expect(await laptop.post("/account/sessions/\(phoneSession)/revoke", [("csrf", try await laptop.csrf())]).status == 303)
            #expect(await phone.get("/").body.contains("Sign in to your notes"))
            #expect(await laptop.get("/").body.contains("Your notes"))
        }
    }

    @Test("signing out ends the session: the old cookie opens nothing afterwards")
    func signOutEndsTheSession() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            let secret = try #require(browser.cookies["notes_session"])
            let out = await browser.post("/sign-out", [("csrf", try await browser.csrf())])
            #expect(out.status == 303 && out.setCookies.contains { $0.hasPrefix("notes_session=;") && $0.contains("Max-Age=0") })
            browser.setCookie("notes_session", secret)
            #expect(await browser.get("/account").status == 303)
        }
    }
}
