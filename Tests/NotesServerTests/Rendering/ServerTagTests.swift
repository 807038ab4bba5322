import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Tags in the web app: a list of every tag, a page per tag (where a rendered `#tag` leads),
/// nested tags listed under their parents, and `tag:NAME` in search.
@Suite("Server rendering: tags")
struct ServerTagTests {
    @Test("the tag list counts notes per tag, nested tags under their parents; a tag's page lists its notes and nested ones")
    func tagListAndTagPages() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let plan = try api.app.addNote("work/plan.md", "# Plan\n\nA #project/notes item.\n")
            let ideas = try api.app.addNote("ideas.md", "---\ntags: [Project, later]\n---\nIdeas.\n")
            _ = try api.app.addNote("code.md", "```\n#notatag\n```\n\nNo tags here, `#neither`.\n")
            let list = await pages.browser.get("/tags")
            #expect(list.status == 200)
            #expect(list.body.contains("<a class=\"tag\" href=\"/tags/later\">#later</a> <span class=\"muted small\">1 note</span>"))
            #expect(list.body.lowercased().contains("<a class=\"tag\" href=\"/tags/project\">#project</a> <span class=\"muted small\">2 notes</span>"),
                    "#project/notes counts for project, and letter case is ignored (Project and project are one tag)")
            #expect(list.body.contains("<a class=\"tag\" href=\"/tags/project/notes\">#project/notes</a>"))
            #expect(!list.body.contains("notatag") && !list.body.contains("neither"), "code never holds tags")

            let project = await pages.browser.get("/tags/project")
            #expect(project.status == 200)
            #expect(project.body.contains("href=\"/notes/\(plan)\"") && project.body.contains("href=\"/notes/\(ideas)\""))
            #expect(project.body.contains("href=\"/tags/project/notes\""), "its nested tags are listed")
            let nested = await pages.browser.get("/tags/project/notes")
            #expect(nested.body.contains("href=\"/notes/\(plan)\"") && !nested.body.contains("href=\"/notes/\(ideas)\""))
            #expect(try await pages.webBody(plan).contains("<a class=\"tag\" href=\"/tags/project/notes\">#project/notes</a>"),
                    "the note's tag leads to that page")
            #expect(await pages.browser.get("/tags/nothing").body.contains("No note carries this tag."))
        }
    }

    @Test("tag names and front-matter tags holding script payloads are escaped on the tag pages")
    func tagPagesEscapePayloads() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            _ = try api.app.addNote("x.md", "---\ntags: [\"<script>window.pwned=1</script>\", \"a\\\" onmouseover=\\\"x\"]\n---\nText.\n")
            let list = await pages.browser.get("/tags")
            let body = try ServerRenderingFixture.between("<main", "</main>", in: list.body)
            #expect(!body.contains("<script>window") && body.contains("#&lt;script&gt;window.pwned=1&lt;/script&gt;"))
            #expect(!body.contains("\" onmouseover"), "no tag reaches an attribute unescaped")
            let page = await pages.browser.get("/tags/<script>alert(1)<%2Fscript>")
            #expect(!page.body.contains("<script>alert(1)"))
        }
    }

    @Test("tag:NAME in the API's search and the web app's search finds the notes carrying the tag or one nested under it")
    func searchTakesTagFilters() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let plan = try api.app.addNote("plan.md", "The zebra plan. #project/notes\n")
            let other = try api.app.addNote("other.md", "Another zebra, untagged.\n")
            let ideas = try api.app.addNote("ideas.md", "---\ntags: [project]\n---\nIdeas without the word.\n")
            func found(_ query: String) async throws -> Set<NoteID> {
                let response = await api.app.send("GET", "/v1/search", query: ["q": query], token: api.token)
                try #require(response.status == 200, "\(response.text)")
                return Set(try response.decode(SearchResults.self).results.map(\.id))
            }
            #expect(try await found("tag:project") == [plan, ideas])
            #expect(try await found("tag:#project/notes") == [plan])
            #expect(try await found("zebra tag:project") == [plan])
            #expect(try await found("zebra") == [plan, other])
            let web = await pages.browser.get("/search", query: ["q": "tag:project zebra"])
            #expect(web.body.contains("href=\"/notes/\(plan)\"") && !web.body.contains("href=\"/notes/\(other)\""))
        }
    }
}
