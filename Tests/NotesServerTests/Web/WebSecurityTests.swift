import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// CSRF tokens, the same-origin check, the response headers and escaping.
@Suite("Web security")
struct WebSecurityTests {
    @Test("a state-changing form without the CSRF token is refused and changes nothing")
    func postWithoutCSRFIsRefused() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Keep.md", "precious\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let rev = try #require(try app.note(id)?.rev)
            let missing = await browser.post("/notes/\(id)/delete", [("rev", String(rev))])
            let wrong = await browser.post("/notes/\(id)/delete", [("rev", String(rev)), ("csrf", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")])
            #expect(missing.status == 403 && wrong.status == 403)
            #expect(try app.note(id)?.deleted == false)
            let other = WebBrowser(app)
            try await other.signIn()
            let foreignToken = await browser.post("/notes/\(id)/delete", [("rev", String(rev)), ("csrf", try await other.csrf())])
            #expect(foreignToken.status == 403, "a token is per session")
            #expect(await browser.post("/notes/\(id)/delete", [("rev", String(rev)), ("csrf", try await browser.csrf())]).status == 303)
            #expect(try app.note(id)?.deleted == true)
        }
    }

    @Test("a form with the right token but a foreign, null or missing Origin is refused")
    func postFromAnotherOriginIsRefused() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Keep.md", "precious\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let rev = String(try #require(try app.note(id)?.rev))
            let csrf = try await browser.csrf()
            for headers in [["Origin": "http://evil.test"], ["Origin": "null"], [:], ["Referer": "http://evil.test/notes.test"],
                            ["Origin": "http://notes.test.evil.test"]] {
                let answer = await browser.post("/notes/\(id)/delete", [("rev", rev), ("csrf", csrf)], headers: headers)
                #expect(answer.status == 403, "\(headers)")
                #expect(answer.body.contains("another site"))
            }
            #expect(try app.note(id)?.deleted == false)
            let viaReferer = await browser.post("/notes/\(id)/delete", [("rev", rev), ("csrf", csrf)], headers: ["Referer": "http://notes.test/notes/x"])
            #expect(viaReferer.status == 303, "a same-origin Referer stands in for a missing Origin")
        }
    }

    @Test("the sign-in form needs its own token and the same origin too")
    func signInFormIsProtected() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            _ = await browser.get("/sign-in")
            let noToken = await browser.post("/sign-in", [("username", TestAccount.username), ("password", TestAccount.password)])
            #expect(noToken.status == 403 && noToken.setCookies.allSatisfy { !$0.hasPrefix("notes_session=") })
            let form = await browser.get("/sign-in")
            let csrf = try #require(form.field("csrf"))
            let foreign = await browser.post("/sign-in", [("csrf", csrf), ("username", TestAccount.username), ("password", TestAccount.password)],
                                             headers: ["Origin": "http://evil.test"])
            #expect(foreign.status == 403)
        }
    }

    @Test("every page carries a strict CSP, nosniff-compatible headers, same-origin referrers and no-store")
    func pagesCarrySecurityHeaders() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("A.md", "# A\n")
            let browser = WebBrowser(app)
            let signIn = await browser.get("/")
            try await browser.signIn()
            for page in [signIn, await browser.get("/"), await browser.get("/notes/\(id)"), await browser.get("/notes/\(id)/edit"),
                         await browser.get("/search", query: ["q": "a"]), await browser.get("/account"), await browser.get("/notes/a/b/c"),
                         await browser.get("/notes/not-an-id")] {
                let csp = try #require(page.header("Content-Security-Policy"))
                #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"))
                #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
                #expect(page.header("Referrer-Policy") == "same-origin")
                #expect(page.header("Cache-Control") == "no-store")
                #expect(!page.body.contains("<script>"), "no inline script")
            }
        }
    }

    @Test("assets are served under a content hash, cached for a year, and an old hash is not found")
    func assetsAreVersioned() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            let page = await browser.get("/")
            for asset in WebAsset.all {
                #expect(page.body.contains(asset.path.value))
                let answer = await browser.get(asset.path.value)
                #expect(answer.status == 200)
                #expect(answer.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(answer.body.utf8.count == asset.bytes.count)
            }
            #expect(await browser.get("/assets/notes.000000000000.css").status == 404)
        }
    }

    @Test("the template escapes interpolated text in text and attribute contexts")
    func templatesEscapeText() {
        let hostile = "\"><script>alert('x')</script>&"
        let html: HTML = "<p title=\"\(hostile)\">\(hostile)</p>"
        #expect(html.description == "<p title=\"&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>")
        #expect(WebPath("/search").query([("q", "a&b \"c\"")]).value == "/search?q=a%26b%20%22c%22")
    }

    @Test("a sign-in's return address is only ever a path on this site")
    func returnPathsStayOnThisSite() {
        for hostile in ["//evil.test/x", "/\\evil.test", "https://evil.test", "javascript:alert(1)", "/a b", "/a\u{0}b", ""] {
            #expect(WebPath(returnedPath: hostile) == nil, "\(hostile)")
        }
        #expect(WebPath(returnedPath: "/notes/x?y=1")?.value == "/notes/x?y=1")
    }

    @Test("note paths, text and search words with markup appear escaped on every page")
    func userTextIsEscapedOnPages() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("x<b>bold&.md", "<script>window.x=1</script>\n\n[a](javascript:alert(1)) <img src=x onerror=alert(1)> zebra\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let pages = [await browser.get("/"), await browser.get("/notes/\(id)"), await browser.get("/notes/\(id)/edit"),
                         await browser.get("/search", query: ["q": "zebra <i>"]), await browser.get("/notes/\(id)/history")]
            for page in pages {
                #expect(!page.body.contains("<b>bold") && !page.body.contains("<script>window") && !page.body.contains("<i>"))
                #expect(!page.body.contains("javascript:") || page.body.contains("[a](javascript:alert(1))"), "only as text in the editor")
                #expect(!page.body.contains("<img src=x onerror"))
            }
            #expect(pages[0].body.contains("x&lt;b&gt;bold&amp;"))
        }
    }
}
