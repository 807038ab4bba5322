import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// Publishing from the web app: the note page's form, the link shown once, unpublishing, the
/// account page's list, and the refusals (no CSRF token, another site, another user's note).
@Suite("Web: publishing a note")
struct WebPublishTests {
    /// The link in the published page's copy field.
    static func link(in page: WebBrowser.Page) throws -> String {
        let start = try #require(page.body.range(of: "id=\"publication-link\" value=\""), "no link on the page: \(page.body)")
        return String(page.body[start.upperBound...].prefix { $0 != "\"" })
    }

    /// The page at `link`'s path as a reader without a session sees it.
    static func anonymousRead(_ app: TestApp, _ link: String) async throws -> WebBrowser.Page {
        let path = try #require(URLComponents(string: link)?.path)
        return await WebBrowser(app).get(path)
    }

    @Test("publishing from the note page shows the full link once; it opens without signing in; the pages never show it again")
    func publishShowsTheLinkOnce() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Trips/Lisbon.md", "# Lisbon\n\nTram 28 at dawn.\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let notePage = await browser.get("/notes/\(id)")
            #expect(notePage.body.contains("action=\"/notes/\(id)/publish\""))
            #expect(notePage.body.contains("name=\"indexable\""))
            let csrf = try await browser.csrf(from: "/notes/\(id)")
            let published = await browser.post("/notes/\(id)/publish", [("csrf", csrf), ("expires", "604800"), ("indexable", "yes")])
            #expect(published.status == 201)
            #expect(published.header("Cache-Control") == "no-store")
            let link = try Self.link(in: published)
            #expect(link.hasPrefix("http://notes.test/p/") && link.count == "http://notes.test/p/".count + PublicationToken.length)
            let token = String(link.dropFirst("http://notes.test/p/".count))

            let reader = try await Self.anonymousRead(app, link)
            #expect(reader.status == 200 && reader.body.contains("Tram 28 at dawn."))
            #expect(reader.header("X-Robots-Tag") == nil, "the owner allowed search engines")

            let after = await browser.get("/notes/\(id)")
            #expect(after.body.contains("action=\"/notes/\(id)/unpublish\""))
            #expect(!after.body.contains("action=\"/notes/\(id)/publish\""))
            let account = await browser.get("/account")
            #expect(account.body.contains("Trips/Lisbon.md") && account.body.contains("expires"))
            #expect(account.body.contains("action=\"/account/publications/\(id)/revoke\""))
            for page in [after, account] { #expect(!page.body.contains(token), "the link is shown only when made") }
        }
    }

    @Test("the link uses --public-url when the operator set one, and noindex is the default")
    func linkUsesThePublicURL() async throws {
        try await TestApp.with({ $0.signIn.publicURL = URL(string: "https://notes.example.org/") }) { app in
            let id = try app.addNote("Recipe.md", "Bread.\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let published = await browser.post("/notes/\(id)/publish", [("csrf", try await browser.csrf(from: "/notes/\(id)")), ("expires", "never")])
            let link = try Self.link(in: published)
            #expect(link.hasPrefix("https://notes.example.org/p/"))
            let reader = await WebBrowser(app).get(String(link.dropFirst("https://notes.example.org".count)))
            #expect(reader.status == 200 && reader.header("X-Robots-Tag") == "noindex")
        }
    }

    @Test("publishing needs the session's CSRF token and a same-origin post; nothing is published otherwise")
    func publishNeedsCSRF() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Private.md", "secret plans\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            #expect(await browser.post("/notes/\(id)/publish", [("expires", "never")]).status == 403)
            #expect(await browser.post("/notes/\(id)/publish", [("csrf", "guess"), ("expires", "never")]).status == 403)
            let csrf = try await browser.csrf(from: "/notes/\(id)")
            let crossSite = await browser.post("/notes/\(id)/publish", [("csrf", csrf)], headers: ["Origin": "https://evil.example"])
            #expect(crossSite.status == 403)
            #expect(try app.count("SELECT count(*) FROM publications") == 0)
            // Unpublishing and revoking are guarded the same way.
            _ = await browser.post("/notes/\(id)/publish", [("csrf", csrf)])
            #expect(await browser.post("/notes/\(id)/unpublish", [("csrf", "guess")]).status == 403)
            #expect(await browser.post("/account/publications/\(id)/revoke", []).status == 403)
            #expect(try app.count("SELECT count(*) FROM publications WHERE revoked_at IS NULL") == 1)
        }
    }

    @Test("another user's note can be neither published nor unpublished from the web app")
    func anotherUsersNoteIsRefused() async throws {
        try await TestApp.with { app in
            try app.addUser("bob", password: "another long secret")
            let alices = try app.addNote("Diary.md", "alice's diary\n")
            let bob = WebBrowser(app)
            try await bob.signIn("bob", "another long secret")
            let csrf = try await bob.csrf()
            #expect(await bob.get("/notes/\(alices)").status == 404)
            let publish = await bob.post("/notes/\(alices)/publish", [("csrf", csrf), ("expires", "never")])
            #expect(publish.status == 404)
            #expect(!publish.body.contains("/p/"))
            #expect(try app.count("SELECT count(*) FROM publications") == 0)

            let alice = WebBrowser(app)
            try await alice.signIn()
            _ = await alice.post("/notes/\(alices)/publish", [("csrf", try await alice.csrf(from: "/notes/\(alices)"))])
            #expect(await bob.post("/notes/\(alices)/unpublish", [("csrf", csrf)]).status == 404)
            #expect(await bob.post("/account/publications/\(alices)/revoke", [("csrf", csrf)]).status == 404)
            #expect(try app.count("SELECT count(*) FROM publications WHERE revoked_at IS NULL") == 1, "alice's link still works")
        }
    }

    @Test("unpublishing from the note page, or revoking from the account page, ends the link at once")
    func unpublishAndRevokeEndTheLink() async throws {
        try await TestApp.with { app in
            let first = try app.addNote("One.md", "one\n")
            let second = try app.addNote("Two.md", "two\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let firstLink = try Self.link(in: await browser.post("/notes/\(first)/publish", [("csrf", csrf)]))
            let secondLink = try Self.link(in: await browser.post("/notes/\(second)/publish", [("csrf", csrf), ("expires", "86400")]))

            let unpublished = await browser.post("/notes/\(first)/unpublish", [("csrf", csrf)])
            #expect(unpublished.status == 303 && unpublished.header("Location") == "/notes/\(first)")
            #expect(try await Self.anonymousRead(app, firstLink).status == 404)
            #expect(await browser.get("/notes/\(first)").body.contains("action=\"/notes/\(first)/publish\""))

            let revoked = await browser.post("/account/publications/\(second)/revoke", [("csrf", csrf)])
            #expect(revoked.header("Location") == "/account?done=unpublished")
            #expect(try await Self.anonymousRead(app, secondLink).status == 404)
            let account = await browser.get("/account", query: ["done": "unpublished"])
            #expect(!account.body.contains("Two.md") && account.body.contains("No published notes."))
            #expect(await browser.post("/account/publications/\(second)/revoke", [("csrf", csrf)]).status == 404, "already ended")
        }
    }

    @Test("an expiry not offered by the form is refused, not stretched or ignored")
    func badExpiryIsRefused() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Note.md", "text\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            for value in ["0", "-5", "soon", String(PublicationStore.maxLifetimeSeconds + 1)] {
                #expect(await browser.post("/notes/\(id)/publish", [("csrf", csrf), ("expires", value)]).status == 422, "\(value)")
            }
            #expect(try app.count("SELECT count(*) FROM publications") == 0)
        }
    }
}
