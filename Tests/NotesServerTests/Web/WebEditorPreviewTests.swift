import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The editor's live preview renders a draft as the note page renders the saved note: relative
/// images and links lead to `/files/…` and to note pages, resolved from the note's folder.
@Suite("Web editor preview")
struct WebEditorPreviewTests {
    @Test("the preview rewrites a relative image to /files like the note page, from the saved note's folder")
    func previewRewritesImagesLikeTheNotePage() async throws {
        try await SignedInApp.with { api in
            try await WebAttachmentTests.attach(api, "work/img/chart.png", WebAttachmentTests.png)
            let other = try api.app.addNote("work/other.md", "# Other\n")
            let draft = "![chart](img/chart.png) [other](other.md#part) ![gone](img/gone.png)\n"
            let id = try api.app.addNote("work/plan.md", draft)
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let edit = await browser.get("/notes/\(id)/edit")
            #expect(edit.body.contains("data-note-path=\"work/plan.md\""), "the editor tells the script which note it previews")
            let csrf = try #require(edit.field("csrf"))

            let preview = await browser.post("/preview", [("csrf", csrf), ("content", draft), ("path", "work/plan.md")])
            #expect(preview.status == 200)
            #expect(preview.body.contains("<img src=\"/files/work/img/chart.png\" alt=\"chart\""), "\(preview.body)")
            #expect(preview.body.contains("href=\"/notes/\(other)#part\""))
            #expect(preview.body.contains("src=\"img/gone.png\""), "a path naming nothing is kept as written")
            // The same bytes as the saved note's page shows.
            let page = await browser.get("/notes/\(id)")
            #expect(page.body.contains(preview.body.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    @Test("a new note's preview resolves from the folder typed so far; an invalid folder resolves from the top")
    func newNotePreviewResolvesFromTheTypedFolder() async throws {
        try await SignedInApp.with { api in
            try await WebAttachmentTests.attach(api, "work/img/chart.png", WebAttachmentTests.png)
            try await WebAttachmentTests.attach(api, "img/top.png", WebAttachmentTests.png)
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf(from: "/new")
            let typed = await browser.post("/preview", [("csrf", csrf), ("content", "![c](img/chart.png)"), ("path", "work/Unfinished na")])
            #expect(typed.body.contains("<img src=\"/files/work/img/chart.png\""), "\(typed.body)")
            for path in ["", "../outside/x", "work//x", ".hidden/x"] {
                let top = await browser.post("/preview", [("csrf", csrf), ("content", "![t](img/top.png)"), ("path", path)])
                #expect(top.status == 200 && top.body.contains("<img src=\"/files/img/top.png\""), "\(path): \(top.body)")
            }
            // Without a session there is no preview (and nothing of the user's files).
            let stranger = WebBrowser(api.app)
            #expect(await stranger.post("/preview", [("content", "![c](img/top.png)")]).status != 200)
        }
    }
}
