import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A web save against a stale revision merges as `notes sync` does: the three-way merge against
/// the revision the editor opened at saves both sides' changes when they do not overlap, and only
/// an overlapping change shows the conflict page, which says what "Save my text" replaces.
@Suite("Web editor merge")
struct WebEditMergeTests {
    /// Changes the note through the API, as `notes sync` from another device does.
    private static func changeElsewhere(_ api: SignedInApp, _ id: NoteID, _ content: String) async throws {
        let note = try #require(try api.app.note(id))
        let body = try WireJSON.encoder().encode(PutNoteRequest(path: note.path, content: content))
        let answer = try await api.send("PUT", "/v1/notes/\(id)", body: body,
                                        headers: ["Content-Type": "application/json", "If-Match": "\"\(note.rev)\""])
        try #require(answer.status == 200, "the API's update answered \(answer.status)")
    }

    /// The editor's form fields for the note as it is now: its revision and the CSRF token.
    private static func openEditor(_ browser: WebBrowser, _ id: NoteID) async throws -> (rev: String, csrf: String) {
        let form = await browser.get("/notes/\(id)/edit")
        return (try #require(form.field("rev")), try #require(form.field("csrf")))
    }

    @Test("a line appended in the web editor while another device appends one saves both, the other device's first")
    func bothAppendedLinesAreKept() async throws {
        try await SignedInApp.with { api in
            let id = try api.app.addNote("Journal.md", "# Journal\n\nmonday\n")
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let editor = try await Self.openEditor(browser, id)
            try await Self.changeElsewhere(api, id, "# Journal\n\nmonday\nfrom the CLI\n")
            let saved = await browser.post("/notes/\(id)/edit", [("csrf", editor.csrf), ("rev", editor.rev),
                                                                 ("content", "# Journal\r\n\r\nmonday\r\nfrom the web\r\n")])
            #expect(saved.status == 303 && saved.header("Location")?.hasSuffix("done=merged") == true, "saved, no conflict page")
            #expect(try api.app.note(id)?.content == "# Journal\n\nmonday\nfrom the CLI\nfrom the web\n")
            #expect(await browser.get("/notes/\(id)", query: ["done": "merged"]).body.contains("merged with changes made elsewhere"))
        }
    }

    @Test("edits of different lines of a stale revision are merged, as sync merges them")
    func separateEditsAreMerged() async throws {
        try await SignedInApp.with { api in
            let id = try api.app.addNote("List.md", "apples\nbread\ncheese\ndates\neggs\n")
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let editor = try await Self.openEditor(browser, id)
            try await Self.changeElsewhere(api, id, "apples\nbread\ncheese\ndates\nfree-range eggs\n")
            let saved = await browser.post("/notes/\(id)/edit", [("csrf", editor.csrf), ("rev", editor.rev),
                                                                 ("content", "green apples\nbread\ncheese\ndates\neggs\n")])
            #expect(saved.status == 303)
            #expect(try api.app.note(id)?.content == "green apples\nbread\ncheese\ndates\nfree-range eggs\n")
        }
    }

    @Test("an overlapping change shows the conflict page, and Save my text names the revision and the lines it replaces")
    func overlappingChangeSaysWhatSaveReplaces() async throws {
        try await SignedInApp.with { api in
            let id = try api.app.addNote("Plan.md", "meet at noon\nbring maps\n")
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let editor = try await Self.openEditor(browser, id)
            try await Self.changeElsewhere(api, id, "meet at one\nbring maps\n")
            let current = try #require(try api.app.note(id))
            let stale = await browser.post("/notes/\(id)/edit", [("csrf", editor.csrf), ("rev", editor.rev),
                                                                 ("content", "meet at two\nbring maps\n")])
            #expect(stale.status == 409)
            #expect(try api.app.note(id)?.content == "meet at one\nbring maps\n", "nothing is saved yet")
            #expect(stale.body.contains(">\nmeet at two\nbring maps\n</textarea>"), "the typed text is in the editor")
            #expect(stale.body.contains("<button type=\"submit\" aria-describedby=\"save-consequence\">Save my text</button>"))
            #expect(stale.body.contains("Save my text replaces the saved version (revision \(current.rev), saved at \(WebFormat.plainTime(current.updatedAt)))"),
                    "the sentence names the revision it replaces")
            #expect(stale.body.contains("with the text in the editor: the 1 line marked − in the difference leaves the note. The saved version stays in the note&#39;s history."),
                    "and how many of its lines go")
            let newRev = try #require(stale.field("rev"))
            #expect(newRev == String(current.rev), "Save my text is based on the revision it names")
            #expect(await browser.post("/notes/\(id)/edit", [("csrf", editor.csrf), ("rev", newRev), ("content", "meet at two\nbring maps\n")]).status == 303)
            #expect(try api.app.note(id)?.content == "meet at two\nbring maps\n")
        }
    }

    @Test("a device name shown in the Save my text sentence is escaped")
    func deviceNameIsEscaped() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("N.md", "one\n")
            let user = try #require(try UserStore(database: app.application.database, clock: app.clock.serverClock).find(username: TestAccount.username))
            let browser = WebBrowser(app)
            try await browser.signIn()
            let editor = try await Self.openEditor(browser, id)
            let note = try #require(try app.note(id))
            _ = try app.application.notes.put(userID: user.id, id: id, path: try NotePath("N.md"), content: "two\n",
                                              precondition: .revision(note.rev), device: "<script>window.pwned=1</script>")
            let stale = await browser.post("/notes/\(id)/edit", [("csrf", editor.csrf), ("rev", editor.rev), ("content", "three\n")])
            #expect(stale.status == 409)
            #expect(!stale.body.contains("<script>window.pwned"))
            #expect(stale.body.contains("saved from &lt;script&gt;window.pwned=1&lt;/script&gt; at "))
        }
    }
}
