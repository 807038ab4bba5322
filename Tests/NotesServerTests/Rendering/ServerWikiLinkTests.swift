import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Wiki links and embeds on the server's pages resolve against the owner's own notes and files,
/// as export resolves them, and lead where each page can lead.
@Suite("Server rendering: wiki links")
struct ServerWikiLinkTests {
    @Test("in the web app a wiki link leads to the note's page, an embed shows the file, a link to nothing is its text")
    func webAppResolvesWikiLinksToTheOwnersNotesAndFiles() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            try await WebAttachmentTests.attach(api, "media/pic0.png", WebAttachmentTests.png)
            let target = try api.app.addNote("guides/Another note.md", "# Another note\n\n## Part two\n")
            let id = try api.app.addNote("journal/today.md", """
                See [[Another note]], [[Another note#Part two|the second part]] and [[Nowhere]].

                ![[pic0.png]]

                """)
            let body = try await pages.webBody(id)
            #expect(body.contains("<a href=\"/notes/\(target)\">Another note</a>"))
            #expect(body.contains("<a href=\"/notes/\(target)#part-two\">the second part</a>"))
            #expect(body.contains("<img src=\"/files/media/pic0.png\" alt=\"pic0.png\""))
            #expect(body.contains(" and Nowhere.") && !body.contains("[["), "a link to nothing is its text, never raw brackets")

            let fragment = try await pages.apiHTML(id)
            #expect(fragment.contains("<a href=\"../guides/Another%20note.md\">Another note</a>"),
                    "the API's HTML leads where the note's own Markdown links would: relative to its folder")
        }
    }

    @Test("a note's HTML follows the notes its wiki links name: created, renamed or deleted after the first read")
    func apiHTMLFollowsTheNotesItsWikiLinksName() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let id = try api.app.addNote("linking.md", "Read [[Later]] and #tag.\n")
            #expect(try await pages.apiHTML(id) == "<p>Read Later and <a class=\"tag\" href=\"/tags/tag\">#tag</a>.</p>\n")
            let later = NoteID()
            try await PublicationTests.put(api.app, later, "Later.md", "# Later\n", token: api.token)
            #expect(try await pages.apiHTML(id).contains("<a href=\"Later.md\">Later</a>"), "a note created since is linked")
            let moved = try await PublicationTests.put(api.app, later, "archive/Later.md", "# Later\n", token: api.token, rev: 2)
            #expect(try await pages.apiHTML(id).contains("<a href=\"archive/Later.md\">Later</a>"), "a renamed one is followed")
            let deleted = await api.app.send("DELETE", "/v1/notes/\(later)", token: api.token, headers: ["If-Match": "\"\(moved.rev)\""])
            #expect(deleted.status == 200)
            #expect(try await pages.apiHTML(id).contains("<p>Read Later and"), "a deleted one is text again")
        }
    }

    @Test("a note with wiki links keeps its HTML while its owner changes nothing; a renamed target or an edited embed renders it again")
    func keptHTMLOfANoteWithWikiLinksFollowsItsTargets() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let later = NoteID()
            let target = try await PublicationTests.put(api.app, later, "Later.md", "# Later\n\nFirst words.\n", token: api.token)
            let id = try api.app.addNote("linking.md", "Read [[Later]].\n\n![[Later]]\n")
            #expect(try await pages.apiHTML(id).contains("<a href=\"Later.md\">Later</a>"))
            let kept = {
                try api.app.application.database.read { db in
                    try db.first("SELECT r.html, r.owner_rev FROM rendered_html r JOIN notes n ON n.nid = r.nid WHERE n.id = ?", [id.value]) {
                        (html: $0.string(0), ownerRev: $0.isNull(1) ? nil : $0.int64(1))
                    }
                }
            }
            #expect(try await waitUntil { try kept()?.ownerRev != nil }, "the rendering is kept, marked with the owner's revision")
            #expect(try kept()?.html.contains("<a href=\"Later.md\">Later</a>") == true)

            let moved = try await PublicationTests.put(api.app, later, "archive/Later.md", "# Later\n\nFirst words.\n", token: api.token,
                                                     rev: target.rev)
            #expect(try await pages.apiHTML(id).contains("<a href=\"archive/Later.md\">Later</a>"), "a renamed target changes the link")
            #expect(try await waitUntil { try kept()?.html.contains("archive/Later.md") == true }, "and the new rendering is kept")

            _ = try await PublicationTests.put(api.app, later, "archive/Later.md", "# Later\n\nSecond words.\n", token: api.token,
                                              rev: moved.rev)
            let edited = try await pages.apiHTML(id)
            #expect(edited.contains("Second words.") && !edited.contains("First words."), "an edit of the embedded note shows")
        }
    }

    @Test("on a published page a link to an unpublished note is its text, the same as a link to nothing; embedded images show")
    func publishedPageLinkToAnUnpublishedNoteRendersAsText() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            try await WebAttachmentTests.attach(api, "blog/img/chart.png", WebAttachmentTests.png)
            _ = try api.app.addNote("private/Secret plans.md", "# Secret plans\n")
            let withSecret = try api.app.addNote("blog/a.md", "Read [[Secret plans]] and [[Secret plans#Part|more]].\n\n![[chart.png]]\n")
            let withNothing = try api.app.addNote("blog/b.md", "Read [[Nothing here]] and [[Nothing here#Part|more]].\n\n![[chart.png]]\n")
            let secretPage = try await pages.publishedPage(withSecret)
            let nothingPage = try await pages.publishedPage(withNothing)
            let secretBody = try ServerRenderingFixture.publishedBody(secretPage)
            #expect(secretBody.contains("<p>Read Secret plans and more.</p>"))
            #expect(!secretPage.contains("private") && !secretPage.contains("Secret%20plans") && !secretPage.contains("<a "),
                    "no path, no link")
            let nothingBody = try ServerRenderingFixture.publishedBody(nothingPage)
            #expect(secretBody.replacingOccurrences(of: "Secret plans", with: "Nothing here") == nothingBody.replacingOccurrences(of: try #require(Self.token(in: nothingBody)), with: try #require(Self.token(in: secretBody))),
                    "the page reads the same whether the linked note exists or not")
            let source = try #require(PublicationTests.attributeValues("src", in: secretBody).first)
            #expect(source.hasSuffix("/a/img/chart.png"), "an embedded image goes through the publication")
            let image = await WebAttachmentTests.anonymous(api.app, source)
            #expect(image.status == 200 && image.body == Data(WebAttachmentTests.png), "and is served to the reader")
        }
    }

    @Test("an embedded note shows its content in the web app and the API, with its own links still leading home; never on a published page")
    func noteEmbedsShowTheOwnersNoteExceptOnPublishedPages() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let target = try api.app.addNote("guides/Recipe.md", """
                # Recipe

                Intro of the recipe.

                ## Steps

                Stir <script>alert(1)</script> well, see [the list](list.md).

                ## Later

                Not embedded.

                """)
            let list = try api.app.addNote("guides/list.md", "# List\n")
            let loop = try api.app.addNote("loop.md", "Loop ![[loop]]\n\n![[loop]]\n")
            let id = try api.app.addNote("journal/today.md", "Before.\n\n![[Recipe#Steps]]\n\nAfter.\n")

            let body = try await pages.webBody(id)
            #expect(body.contains("class=\"note-embed\"") && body.contains("Stir") && !body.contains("Not embedded"),
                    "the section under the heading is embedded, the next one is not")
            #expect(body.contains("<a href=\"/notes/\(list)\">the list</a>"), "the embedded note's own link leads to its target")
            #expect(body.contains("/notes/\(target)"), "the embed names the note it shows")
            #expect(!body.contains("<script>alert"), "embedded text is escaped")

            let fragment = try await pages.apiHTML(id)
            #expect(fragment.contains("Stir") && fragment.contains("href=\"../guides/list.md\""),
                    "in the API the embedded note's link is rebased to the embedding note's folder")

            let loopBody = try await pages.webBody(loop)
            #expect(!loopBody.contains("note-embed-content"), "a note embedding itself renders a link, not itself")

            let published = try ServerRenderingFixture.publishedBody(try await pages.publishedPage(id))
            #expect(!published.contains("Stir") && !published.contains("note-embed-content"),
                    "a published page shows only the published note")
        }
    }

    /// The publication token in a page's image address (`/p/TOKEN/a/...`).
    private static func token(in html: String) -> String? {
        guard let start = html.range(of: "/p/") else { return nil }
        return String(html[start.upperBound...].prefix(PublicationToken.length))
    }
}
