import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// In the web app, a `.markdown` or `.MD` file is a note like a `.md` one, so its page,
/// editor, save, trash and undelete work as theirs do.
@Suite("Web notes of every note extension")
struct WebNoteExtensionsTests {
    @Test("a .Markdown note is shown, saved, moved to the trash and undeleted like a .md note")
    func markdownNoteWorksLikeAnyNote() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("docs/Guide.Markdown", "No heading.\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let page = await browser.get("/notes/\(id)")
            #expect(page.status == 200 && page.body.contains("<h1>Guide</h1>"), "titled by its name without the extension")

            let csrf = try #require(await browser.get("/notes/\(id)/edit").field("csrf"))
            let saved = await browser.post("/notes/\(id)/edit", [("csrf", csrf), ("rev", "1"), ("content", "Edited.\n")])
            #expect(saved.status == 303, "\(saved.body)")
            #expect(try app.note(id)?.content == "Edited.\n")

            let rev = try #require(try app.note(id)?.rev)
            #expect(await browser.post("/notes/\(id)/delete", [("csrf", csrf), ("rev", String(rev))]).status == 303)
            let trash = await browser.get("/trash")
            #expect(trash.body.contains("docs/Guide.Markdown"), "the trash lists notes of every note extension")
            let tombstone = try #require(try app.note(id)?.rev)
            let undeleted = await browser.post("/trash/\(id)/restore", [("csrf", csrf), ("rev", String(tombstone))])
            #expect(undeleted.status == 303, "\(undeleted.body)")
            #expect(try app.note(id).map { !$0.deleted && $0.content == "Edited.\n" && $0.path == "docs/Guide.Markdown" } == true)
        }
    }
}
