import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// An account made by an identity provider has no password (an empty hash, as `IdentityStore`
/// records it): its account page offers no "Change password", and a posted change is refused
/// in words, without touching the sign-in throttle or the account.
@Suite("Web account without a password")
struct WebPasswordlessAccountTests {
    /// A browser signed in as a new account without a password, as a provider sign-in leaves it.
    private static func passwordlessBrowser(_ app: TestApp) throws -> (WebBrowser, Int64) {
        let user = try UserStore(database: app.application.database, clock: app.clock.serverClock).create(username: "dora", passwordHash: "")
        let browser = WebBrowser(app)
        browser.setCookie(WebCookie.session, try app.application.sessions.createBrowserSession(userID: user.id, device: "test browser"))
        return (browser, user.id)
    }

    @Test("the account page hides Change password from an account without one, and still offers it to a password account")
    func accountPageOffersPasswordChangeOnlyWithAPassword() async throws {
        try await TestApp.with { app in
            let (dora, _) = try Self.passwordlessBrowser(app)
            let page = await dora.get("/account")
            #expect(page.status == 200 && page.body.contains("Account: dora"))
            #expect(!page.body.contains("Change password") && !page.body.contains("action=\"/account/password\""))
            #expect(page.body.contains("signs in through an identity provider and has no password"))

            let alice = WebBrowser(app)
            try await alice.signIn()
            let own = await alice.get("/account")
            #expect(own.body.contains("<h2 id=\"password-heading\">Change password</h2>") && own.body.contains("action=\"/account/password\""))
        }
    }

    @Test("a password change posted for an account without a password is refused politely and sets nothing")
    func passwordChangeWithoutAPasswordIsRefused() async throws {
        try await TestApp.with { app in
            let (dora, userID) = try Self.passwordlessBrowser(app)
            let csrf = try await dora.csrf(from: "/account")
            let posted = await dora.post("/account/password", [("csrf", csrf), ("current", ""), ("new", "a brand new secret"),
                                                               ("repeat", "a brand new secret")])
            #expect(posted.status == 409)
            #expect(posted.body.contains("role=\"alert\"") && posted.body.contains("has no password"), "\(posted.body)")
            #expect(!posted.body.contains("The current password is wrong"))
            let user = try #require(try UserStore(database: app.application.database, clock: app.clock.serverClock).find(id: userID))
            #expect(!UserStore.hasPassword(user), "no password was set")
            #expect(await dora.get("/account").status == 200, "the session is still live")
        }
    }
}
