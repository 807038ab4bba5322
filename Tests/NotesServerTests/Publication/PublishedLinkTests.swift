import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Links between published notes: on a published page a link to a note the owner published too
/// leads to that note's page under the reader's own link (`/p/<token>/n/<link id>`), served
/// only while both are published; a link to any other note stays its text.
@Suite("Published notes: links between them")
struct PublishedLinkTests {
    @Test("a published page links a published note to its page under the reader's link, with its heading and images; an unpublished one stays text")
    func linkToAPublishedNoteLeadsToItsPage() async throws {
        try await SignedInApp.with { api in
            try await WebAttachmentTests.attach(api, "blog/img/chart.png", WebAttachmentTests.png)
            _ = try api.app.addNote("private/Secret plans.md", "# Secret plans\n")
            let other = try api.app.addNote("blog/Other post.md", "# Other post\n\n## Part two\n\nThe other text.\n\n![[chart.png]]\n")
            let otherPublication = try await PublicationTests.publish(api.app, other, token: api.token)
            let linking = try api.app.addNote("blog/first.md", """
                See [[Other post]], [[Other post#Part two|its second part]], [a Markdown link](Other%20post.md) and [[Secret plans]].

                """)
            let publication = try await PublicationTests.publish(api.app, linking, token: api.token)
            let token = try #require(publication.token)
            let page = try await PublicationTests.read(api.app, publication.url)
            let body = try ServerRenderingFixture.publishedBody(page.text)
            let link = try #require(PublicationTests.attributeValues("href", in: body).first)
            let linkID = Hex.encode(PublicationToken.digest(try #require(otherPublication.token)))
            #expect(link == "/p/\(token)/n/\(linkID)", "the link leads under the reader's own link, to the other publication")
            #expect(body.contains("<a href=\"\(link)\">Other post</a>"))
            #expect(body.contains("<a href=\"\(link)#part-two\">its second part</a>"), "the heading is kept")
            #expect(body.contains("<a href=\"\(link)\">a Markdown link</a>"), "a Markdown link to the note is treated the same")
            #expect(body.contains(" and Secret plans.") && !page.text.contains("private"), "an unpublished note stays text")
            #expect(!page.text.contains(try #require(otherPublication.token)), "the other note's own link is never shown")

            let linked = try await PublicationTests.read(api.app, link)
            #expect(linked.status == 200 && linked.text.contains("The other text.") && linked.text.contains("<title>Other post</title>"))
            #expect(linked.header("Content-Security-Policy") == PublicationPage.contentSecurityPolicy)
            #expect(linked.header("X-Robots-Tag") == "noindex")
            let source = try #require(PublicationTests.attributeValues("src", in: try ServerRenderingFixture.publishedBody(linked.text)).first)
            #expect(source == "\(link)/a/img/chart.png", "its images go through its page under the reader's link")
            let image = await WebAttachmentTests.anonymous(api.app, source)
            #expect(image.status == 200 && image.body == Data(WebAttachmentTests.png))
            let notEmbedded = await WebAttachmentTests.anonymous(api.app, "\(link)/a/../private/Secret%20plans.md")
            #expect(notEmbedded.status == 404)
        }
    }

    @Test("a linked note's page is served only while both publications live, and never across owners")
    func linkedPageNeedsBothPublicationsLive() async throws {
        try await SignedInApp.with { api in
            let other = try api.app.addNote("Other.md", "# Other\n\nThe other text.\n")
            let otherPublication = try await PublicationTests.publish(api.app, other, token: api.token)
            let linking = try api.app.addNote("first.md", "See [[Other]].\n")
            let publication = try await PublicationTests.publish(api.app, linking, token: api.token)
            let token = try #require(publication.token)
            let link = "/p/\(token)/n/" + Hex.encode(PublicationToken.digest(try #require(otherPublication.token)))
            #expect(try await PublicationTests.read(api.app, link).status == 200)

            let revoked = await api.app.send("DELETE", "/v1/notes/\(other)/publication", token: api.token)
            #expect(revoked.status == 204 || revoked.status == 200, "\(revoked.text)")
            let gone = try await PublicationTests.read(api.app, link)
            #expect(gone.status == 404 && gone.body == Data(PublicationPage.notFound.body), "the same page as any dead link")
            let page = try ServerRenderingFixture.publishedBody(try await PublicationTests.read(api.app, publication.url).text)
            #expect(page.contains("<p>See Other.</p>") && !page.contains("<a "), "a note no longer published is text again")

            let again = try await PublicationTests.publish(api.app, other, token: api.token)
            let newLink = "/p/\(token)/n/" + Hex.encode(PublicationToken.digest(try #require(again.token)))
            let stale = try await PublicationTests.read(api.app, link)
            #expect(newLink != link && stale.status == 404, "a new publication makes a new link id")
            #expect(try await PublicationTests.read(api.app, newLink).status == 200)
            #expect(try await PublicationTests.read(api.app, publication.url).text.contains("<a href=\"\(newLink)\">Other</a>"))

            try api.app.addUser("mallory", password: "mallory's long password")
            let mallory = try await api.app.login("mallory", "mallory's long password").decode(TokenResponse.self).accessToken
            let theirs = NoteID()
            try await PublicationTests.put(api.app, theirs, "mine.md", "# Mallory's\n", token: mallory)
            let theirPublication = try await PublicationTests.publish(api.app, theirs, token: mallory)
            let theirToken = try #require(theirPublication.token)
            #expect(try await PublicationTests.read(api.app, "/p/\(theirToken)/n/" + newLink.suffix(64)).status == 404,
                    "another owner's link cannot reach this owner's note")

            let ended = await api.app.send("DELETE", "/v1/notes/\(linking)/publication", token: api.token)
            #expect(ended.status == 204 || ended.status == 200)
            #expect(try await PublicationTests.read(api.app, newLink).status == 404, "nor once the reader's link is revoked")
            #expect(try await PublicationTests.read(api.app, "/p/\(token)/n/not-a-link-id").status == 404)
        }
    }

    @Test("script payloads in a link's label, heading and the linked note's path and text stay text on both pages")
    func payloadsInLinksBetweenPublishedNotesStayText() async throws {
        try await SignedInApp.with { api in
            let other = try api.app.addNote("q\" onmouseover=\"alert(1).md", "# <script>alert(2)</script>\n\n<img src=x onerror=alert(3)>\n")
            let otherPublication = try await PublicationTests.publish(api.app, other, token: api.token)
            let linking = try api.app.addNote("first.md", """
                [[q" onmouseover="alert(1)#" onfocus="alert(4)|x" onclick="alert(5)]] and [[q" onmouseover="alert(1)]]

                """)
            let publication = try await PublicationTests.publish(api.app, linking, token: api.token)
            let page = try await PublicationTests.read(api.app, publication.url)
            let body = try ServerRenderingFixture.publishedBody(page.text)
            let link = "/p/\(try #require(publication.token))/n/" + Hex.encode(PublicationToken.digest(try #require(otherPublication.token)))
            let targets = PublicationTests.attributeValues("href", in: body)
            #expect(targets.count == 2 && targets.allSatisfy { $0 == link || $0.hasPrefix(link + "#") }, "only the link id reaches an attribute: \(body)")
            #expect(!body.contains("onmouseover=\"") && !body.contains("onclick=\"") && !body.contains("onfocus=\""), "\(body)")
            let linked = try await PublicationTests.read(api.app, link)
            #expect(linked.status == 200)
            let linkedBody = try ServerRenderingFixture.publishedBody(linked.text)
            #expect(!linkedBody.contains("<script") && !linkedBody.contains("<img") && !linked.text.contains("<title><script"))
            #expect(!linked.text.contains("onmouseover=\""), "the linked note's path is never in its page unescaped")
        }
    }
}
