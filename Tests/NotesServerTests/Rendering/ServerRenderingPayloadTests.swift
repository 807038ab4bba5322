import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Script payloads in every place the default flavour puts note text render inert on every
/// page the server shows a note on.
@Suite("Server rendering: script payloads")
struct ServerRenderingPayloadTests {
    static let payloads = #"""
        ---
        title: <script>window.pwned=1</script> title
        author: "<img src=x onerror=window.pwned=1>"
        tags: ["<script>window.pwned=1</script>", safe]
        ---
        # <script>window.pwned=1</script> heading

        | <script>window.pwned=1</script> | <img src=x onerror=window.pwned=1> |
        |---|---|
        | <svg onload=window.pwned=1> | [cell](javascript:window.pwned=1) |

        > [!note] <script>window.pwned=1</script> callout <img src=x onerror=window.pwned=1>
        > Body [x](javascript:window.pwned=1)

        > [!"><script>window.pwned=1</script>]- Odd type

        A footnote[^<script>] and ==<img src=x onerror=window.pwned=1>== and #tag<script>window.pwned=1</script>.

        [^<script>]: <script>window.pwned=1</script> [f](vbscript:msgbox(1))

        Math $<script>window.pwned=1</script>$ and $$\href{javascript:window.pwned=1}{x}$$

        ```mermaid
        graph TD; A["<img src=x onerror=window.pwned=1>"]-->B
        ```

        ```"><script>window.pwned=1</script>
        code
        ```

        [[<script>window.pwned=1</script>]] [[Other|<img src=x onerror=window.pwned=1>]] ![[x.png|<script>]]
        [data](data:text/html;base64,PHNjcmlwdD53aW5kb3cucHduZWQ9MTwvc2NyaXB0Pg==) [file](file:///etc/passwd)
        <a href="javascript:window.pwned=1">raw</a> www.example.com/<script>

        """#

    /// No element that runs script, no event handler attribute, no refused scheme.
    private func expectInert(_ html: String, _ where: String) {
        let lower = html.lowercased()
        #expect(!lower.contains("<script") && !lower.contains("<svg") && !lower.contains("<img src=x") && !lower.contains("<iframe"), "\(`where`)")
        #expect(lower.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression) == nil, "no event handler attribute in \(`where`)")
        #expect(!lower.contains("href=\"javascript") && !lower.contains("href=\"vbscript") && !lower.contains("href=\"data:")
                && !lower.contains("href=\"file:"), "no refused scheme in a link in \(`where`)")
    }

    @Test("payloads in front matter, tables, callouts, footnotes, highlights, tags, math, Mermaid, code info, wiki links and links stay text on every page")
    func payloadsRenderInertEverywhere() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            _ = try api.app.addNote("Other.md", "other\n")
            let id = try api.app.addNote("payloads.md", Self.payloads)
            let fragment = try await pages.apiHTML(id)
            expectInert(fragment, "the API's fragment")
            #expect(fragment.contains("<table>") && fragment.contains("data-callout=\"note\"") && fragment.contains("math-inline"),
                    "the constructs do render: \(fragment)")
            #expect(fragment.contains("&lt;img src=x onerror=window.pwned=1&gt;"), "the front matter's value is escaped text")
            let standalone = try await pages.apiHTML(id, query: ["standalone": "1"])
            expectInert(standalone, "the API's page")
            #expect(try ServerRenderingFixture.title(of: standalone) == "&lt;script&gt;window.pwned=1&lt;/script&gt; title")
            let webPage = try await pages.webPage(id)
            expectInert(try await pages.webBody(id), "the web app's note")
            #expect(try ServerRenderingFixture.title(of: webPage).hasPrefix("&lt;script&gt;window.pwned=1&lt;/script&gt; title"))
            let published = try await pages.publishedPage(id)
            expectInert(published, "the published page")
            #expect(try ServerRenderingFixture.title(of: published) == "&lt;script&gt;window.pwned=1&lt;/script&gt; title")

            let preview = await pages.browser.post("/preview", [("csrf", try await pages.browser.csrf(from: "/notes/\(id)/edit")),
                                                               ("path", "payloads.md"), ("content", Self.payloads)])
            #expect(preview.status == 200)
            expectInert(preview.body, "the editor's preview")
            let rev = try #require(try api.app.note(id)?.rev)
            let history = await pages.browser.get("/notes/\(id)/history/\(rev)")
            #expect(history.status == 200 && history.body.contains("data-callout=\"note\""))
            expectInert(try ServerRenderingFixture.between("<h2 id=\"text-heading\">", "</section>", in: history.body), "a revision's page")
        }
    }
}
