import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// A note past the rendering bound shows as its escaped text with a notice on every page that
/// shows a note: the web app's note page and a published page.
@Suite("Web pages: bounded rendering")
struct WebRenderBoundTests {
    /// 40 nested block quotes (past the bound of 32) around script payloads.
    static let deepNote = String(repeating: "> ", count: 40) + "<script>window.pwned = 1</script>\n\n<img src=x onerror=\"window.pwned = 1\">\n"

    private func expectShownAsText(_ html: String, _ where: String) {
        #expect(html.contains("<p class=\"notes-unrendered\" role=\"note\">This note is shown as plain text"), "\(`where`)")
        #expect(html.contains("&lt;script&gt;window.pwned = 1&lt;/script&gt;"), "\(`where`)")
        #expect(!html.contains("<script>window.pwned") && !html.contains("<img src=x") && !html.contains("<blockquote>"), "\(`where`)")
    }

    @Test("the note page shows it as its escaped text with a notice")
    func notePageShowsText() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            let id = try app.addNote("deep.md", Self.deepNote)
            try await browser.signIn()
            let page = await browser.get("/notes/\(id)")
            #expect(page.status == 200)
            expectShownAsText(page.body, "note page")
        }
    }

    @Test("a published page shows it as its escaped text with a notice")
    func publishedPageShowsText() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await PublicationTests.put(app, id, "deep.md", Self.deepNote, token: token)
            let publication = try await PublicationTests.publish(app, id, token: token)
            let page = try await PublicationTests.read(app, publication.url)
            #expect(page.status == 200)
            expectShownAsText(page.text, "published page")
        }
    }

    @Test("a published note over 64 KiB is rendered (on the render worker) into the same page")
    func largePublishedNoteRenders() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            let markdown = "# Large\n\n" + String(repeating: "Some *text* here.\n\n", count: 4_000)
            try await PublicationTests.put(app, id, "large.md", markdown, token: token)
            let publication = try await PublicationTests.publish(app, id, token: token)
            let page = try await PublicationTests.read(app, publication.url)
            #expect(page.status == 200)
            #expect(page.text.contains("<h1 id=\"large\">Large</h1>") && page.text.contains("<title>Large</title>"))
            #expect(page.text.components(separatedBy: "<p>Some <em>text</em> here.</p>").count == 4_001)
        }
    }
}
