import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Notes as their authors wrote them on every page the server shows: the API's HTML, the web
/// app and published pages render through one pipeline (`NoteRendering`), in the default
/// flavour unless the server or a request asks for pure CommonMark.
@Suite("Server rendering")
struct ServerRenderingTests {
    /// A note holding a construct of each kind the default flavour adds.
    static let everyConstruct = """
        ---
        title: The fixture's title
        aliases: [Fixture]
        tags: [fixture]
        status: draft
        ---
        # First heading

        | left | right |
        |:-----|------:|
        | 1    | 2     |

        - [ ] open task
        - [x] done task

        ~~gone~~ ==marked== %%hidden remark%% and a footnote[^1], see www.example.com.

        > [!warning] Careful
        > The callout's body.

        Inline $x^2$ and a #topic/sub tag.

        ```mermaid
        graph TD; A-->B
        ```

        ```swift
        let x = 1
        ```

        [^1]: The footnote's text.

        """

    @Test("the same note gives the same HTML in the API, the web app, a published page, notes export and notes render, apart from link targets, heading ids and tickable tasks")
    func sameNoteRendersTheSameInTheAPITheWebAppAPublishedPageExportAndRenderApartFromLinkTargets() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let id = try api.app.addNote("docs/fixture.md", Self.everyConstruct)
            let fromAPI = try await pages.apiHTML(id)
            let fromWeb = try await pages.webBody(id)
            let published = try ServerRenderingFixture.publishedBody(try await pages.publishedPage(id))
            #expect(ServerRenderingFixture.withoutLinkTargets(fromWeb) == ServerRenderingFixture.withoutLinkTargets(fromAPI))
            #expect(ServerRenderingFixture.withoutLinkTargets(published) == ServerRenderingFixture.withoutLinkTargets(fromAPI))

            // The client's two renderers, the real `notes` on the same note at the same path.
            let work = try TemporaryDirectory("same-rendering")
            defer { work.remove() }
            let folder = work.appending("notes"), site = work.appending("site")
            let file = folder.appendingPathComponent("docs/fixture.md")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(Self.everyConstruct.utf8).write(to: file)
            let exported = try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", site.path, folder.path])
            try #require(exported.exitCode == 0, "\(exported.stderr)")
            let exportPage = String(decoding: try Data(contentsOf: site.appendingPathComponent("docs/fixture.html")), as: UTF8.self)
            let fromExport = try ServerRenderingFixture.between("<main>\n", "</main>", in: exportPage)
            #expect(ServerRenderingFixture.withoutLinkTargets(fromExport) == ServerRenderingFixture.withoutLinkTargets(fromAPI))
            let rendered = try await ProcessRunner.run(BuiltProducts.client, ["render", file.path])
            try #require(rendered.exitCode == 0, "\(rendered.stderr)")
            #expect(ServerRenderingFixture.withoutLinkTargets(rendered.stdout) == ServerRenderingFixture.withoutLinkTargets(ServerRenderingFixture.withoutHeadingIDs(fromAPI)),
                    "notes render gives no heading ids (docs/rendering.md, \"The same note everywhere\")")
            for construct in ["<table>", "<th align=\"left\">left</th>", "type=\"checkbox\"", "<del>gone</del>", "<mark>marked</mark>",
                              "class=\"footnote", "data-callout=\"warning\"", "math-inline", "language-mermaid", "language-swift",
                              "<dl class=\"properties\">", "<h1 id=\"first-heading\">", "href=\"http://www.example.com\""] {
                #expect(fromAPI.contains(construct), "\(construct) in \(fromAPI)")
            }
            #expect(!fromAPI.contains("hidden remark") && !fromAPI.contains("[!warning]") && !fromAPI.contains("title:"))
            #expect(fromAPI.contains("<a class=\"tag\" href=\"/tags/topic/sub\">#topic/sub</a>"), "a tag leads to its page")
            #expect(published.contains("<span class=\"tag\">#topic/sub</span>"), "a published page has no tag pages to lead to")
        }
    }

    @Test("the page title is the front matter's title, else the first heading, else the file name, on every page")
    func pageTitleComesFromFrontMatterThenHeadingThenFileName() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let cases: [(path: String, content: String, title: String)] = [
                ("a/titled.md", "---\ntitle: From <the> front matter\n---\n# A heading\n", "From &lt;the&gt; front matter"),
                ("a/headed.md", "---\nstatus: x\n---\nText.\n\n## The heading\n", "The heading"),
                ("a/plain name.md", "---\nstatus: x\n---\nJust text.\n", "plain name"),
            ]
            for note in cases {
                let id = try api.app.addNote(note.path, note.content)
                #expect(try ServerRenderingFixture.title(of: try await pages.apiHTML(id, query: ["standalone": "1"])) == note.title)
                #expect(try ServerRenderingFixture.title(of: try await pages.publishedPage(id)) == note.title)
                #expect(try ServerRenderingFixture.title(of: try await pages.webPage(id)).hasPrefix(note.title))
            }
        }
    }

    @Test("?flavour=commonmark gives pure CommonMark, the default flavour is the server's, and an unknown flavour is refused")
    func flavourPerRequest() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let id = try api.app.addNote("table.md", "| a | b |\n|---|---|\n| 1 | 2 |\n\n==mark== #tag\n")
            let commonMark = try await pages.apiHTML(id, query: ["flavour": "commonmark"])
            #expect(commonMark == MarkdownRenderer.safe.html(from: "| a | b |\n|---|---|\n| 1 | 2 |\n\n==mark== #tag\n"))
            #expect(!commonMark.contains("<table>") && commonMark.contains("==mark== #tag"))
            #expect(try await pages.apiHTML(id).contains("<table>"))
            #expect(try await pages.apiHTML(id, query: ["flavour": "default"]).contains("<mark>mark</mark>"))
            #expect(try await pages.apiHTML(id, query: ["flavour": "commonmark", "standalone": "1"]).contains("| a | b |"))
            let refused = await api.app.send("GET", "/v1/notes/\(id)/html", query: ["flavour": "gfm"], token: api.token)
            #expect(refused.status == 400 && refused.errorCode == "invalid_parameter")
        }
    }

    @Test("a server set to commonmark renders pure CommonMark everywhere, and ?flavour=default still asks for the default")
    func serverSettingCommonMark() async throws {
        try await TestApp.with({ $0.markdownFlavour = .commonMark }) { app in
            let api = SignedInApp(app: app, token: try await app.signIn().accessToken)
            let pages = try await ServerRenderingFixture.make(api)
            let id = try app.addNote("table.md", "| a | b |\n|---|---|\n| 1 | 2 |\n")
            #expect(try await pages.apiHTML(id) == "<p>| a | b |\n|---|---|\n| 1 | 2 |</p>\n")
            #expect(try await pages.webBody(id).contains("<p>| a | b |"))
            #expect(try await pages.apiHTML(id, query: ["flavour": "default"]).contains("<table>"))
            #expect(try await pages.apiHTML(id) == "<p>| a | b |\n|---|---|\n| 1 | 2 |</p>\n", "the kept rendering is the server's flavour")
        }
    }

    @Test("notes-server serve --markdown refuses a flavour it does not know, naming it, and --help lists it")
    func serveTakesTheMarkdownSetting() async throws {
        let refused = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--markdown", "gfm", "--listen", "127.0.0.1:0"])
        #expect(refused.exitCode == 2)
        #expect(refused.stderr.contains("--markdown must be default or commonmark, not 'gfm'"))
        let help = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--help"])
        #expect(help.stdout.contains("--markdown FLAVOUR"))
    }
}
