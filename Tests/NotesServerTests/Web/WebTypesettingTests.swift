import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// KaTeX and highlight.js, served by the server itself (no CDN) to the pages that show math or
/// code, under hashed names with a year's cache, allowed by the web app's strict CSP.
@Suite("Web typesetting assets")
struct WebTypesettingTests {
    @Test("every page asset is served from this server with its media type and a year's cache; other names are not found")
    func assetsAreServed() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            let files = PageAssets.installed.files
            #expect(files.count > 3)
            for file in files {
                let answer = await browser.get("/assets/" + file.name)
                #expect(answer.status == 200, "\(file.name)")
                #expect(answer.header("Content-Type") == file.mediaType)
                #expect(answer.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(answer.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
                if !file.name.hasSuffix(".woff2") { #expect(answer.body.utf8.count == file.bytes.count) }
            }
            let katex = try #require(PageAssets.installed.katex?.files.first?.name)
            let folder = katex.split(separator: "/")[0]
            #expect(await browser.get("/assets/\(folder)/../notes.css").status == 404)
            #expect(await browser.get("/assets/katex.000000000000/katex.min.js").status == 404)
            #expect(await browser.get("/assets/\(folder)/fonts/missing.woff2").status == 404)
        }
    }

    @Test("a note with code loads highlight.js and our script, the editor loads KaTeX too, a page without either loads neither")
    func pagesLoadWhatTheyShow() async throws {
        try await TestApp.with { app in
            let code = try app.addNote("Code.md", "# Code\n\n```swift\nlet x = 1\n```\n")
            let plain = try app.addNote("Plain.md", "# Plain\n\nwords\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let assets = PageAssets.installed
            let katex = try #require(assets.katex?.files.first?.name), highlight = try #require(assets.highlight?.files.first?.name)
            let codePage = await browser.get("/notes/\(code)").body
            #expect(codePage.contains("<script src=\"/assets/\(highlight)\" defer></script>"))
            #expect(codePage.contains("<script src=\"/assets/\(assets.script.name)\" defer></script>"))
            #expect(!codePage.contains(katex))
            let editor = await browser.get("/notes/\(plain)/edit").body
            #expect(editor.contains(katex) && editor.contains(highlight), "the live preview may show anything")
            for page in [await browser.get("/notes/\(plain)").body, await browser.get("/").body] {
                #expect(!page.contains(highlight) && !page.contains(katex) && !page.contains(assets.script.name))
            }
            let math = WebLayout(title: "t").render(HTML(rendered: "<p><span class=\"math math-inline\">x</span></p>"))
            #expect(math.description.contains("<link rel=\"stylesheet\" href=\"/assets/\(try #require(assets.katex?.files[1].name))\">"))
        }
    }

    @Test("the web app's CSP lets KaTeX's fonts load from this server, and still no inline script or style")
    func policyAllowsOwnFonts() {
        let directives = WebSecurity.contentSecurityPolicy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        for source in ["script-src", "style-src", "font-src"] {
            #expect(directives.filter { $0.hasPrefix(source + " ") } == ["\(source) 'self'"], "\(source): this server's files only")
        }
    }
}
