import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The account page tells people how to use a token as a WebDAV app password, with the address
/// to give their apps.
@Suite("Web app: the WebDAV address on the token page")
struct WebDAVHelpTests {
    @Test("the account page shows the personal space's WebDAV address, the username, and that the password is never accepted there")
    func showsAddress() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            browser.isSecure = true
            try await browser.signIn()
            let page = await browser.get("/account")
            #expect(page.body.contains("<code>https://notes.test/dav/personal/</code>"))
            #expect(page.body.contains("<code>\(TestAccount.username)</code>"))
            #expect(page.body.contains("account password is never accepted there"))
        }
    }

    @Test("a script payload in the Host header reaches the page only as text")
    func hostIsEscaped() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            browser.host = #"evil"><script>alert(1)</script>"#
            let page = await browser.get("/account")
            #expect(page.status == 200)
            #expect(!page.body.contains("<script>alert(1)</script>"))
            #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }
}
