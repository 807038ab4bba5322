import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Ticking a task on a note's page saves a revision that changes that task and nothing else,
/// with the editor's protection: a tick on a stale page is merged into the current text.
@Suite("Web task toggle")
struct WebTaskToggleTests {
    private static let note = "# Today\n\n- [ ] milk\n- [x] bread\n- [ ] eggs\n\nnotes\n"

    @Test("ticking a task makes a new revision with exactly that change")
    func tickSavesOneChange() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Today.md", Self.note)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let rev = try #require(try app.note(id)?.rev)
            let answer = await browser.post("/notes/\(id)/tasks", [("csrf", try await browser.csrf()), ("rev", String(rev)),
                                                                   ("done", "1"), ("done", "2")])
            #expect(answer.status == 303 && answer.header("Location") == "/notes/\(id)")
            let saved = try #require(try app.note(id))
            #expect(saved.content == "# Today\n\n- [ ] milk\n- [x] bread\n- [x] eggs\n\nnotes\n")
            #expect(saved.rev > rev)
            let cleared = await browser.post("/notes/\(id)/tasks", [("csrf", try await browser.csrf()), ("rev", String(saved.rev)), ("done", "2")])
            #expect(cleared.status == 303)
            #expect(try app.note(id)?.content == "# Today\n\n- [ ] milk\n- [ ] bread\n- [x] eggs\n\nnotes\n")
        }
    }

    @Test("a tick on a page older than the note keeps both versions: the change made elsewhere and the tick")
    func staleTickIsMerged() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Today.md", Self.note)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let shown = try #require(try app.note(id)?.rev)
            let user = try #require(try UserStore(database: app.application.database, clock: app.clock.serverClock).find(username: TestAccount.username))
            _ = try app.application.notes.put(userID: user.id, id: id, path: try NotePath("Today.md"),
                                              content: "# Today\n\n- [ ] milk\n- [x] bread\n- [ ] eggs\n\nnotes from the phone\n",
                                              precondition: .revision(shown), device: "phone")
            let answer = await browser.post("/notes/\(id)/tasks", [("csrf", try await browser.csrf()), ("rev", String(shown)),
                                                                   ("done", "0"), ("done", "1")])
            #expect(answer.status == 303 && answer.header("Location")?.hasSuffix("done=merged") == true)
            #expect(try app.note(id)?.content == "# Today\n\n- [x] milk\n- [x] bread\n- [ ] eggs\n\nnotes from the phone\n")
            // The same task changed elsewhere: nothing is overwritten.
            let now = try #require(try app.note(id))
            _ = try app.application.notes.put(userID: user.id, id: id, path: try NotePath("Today.md"),
                                              content: "# Today\n\n- [x] oat milk\n- [x] bread\n- [ ] eggs\n\nnotes from the phone\n",
                                              precondition: .revision(now.rev), device: "phone")
            let overlapping = await browser.post("/notes/\(id)/tasks", [("csrf", try await browser.csrf()), ("rev", String(now.rev)), ("done", "1")])
            #expect(overlapping.status == 409 && overlapping.body.contains("changed elsewhere"))
            #expect(try app.note(id)?.content == "# Today\n\n- [x] oat milk\n- [x] bread\n- [ ] eggs\n\nnotes from the phone\n")
        }
    }

    @Test("a missing or forged CSRF token is refused and changes nothing")
    func forgedTokenIsRefused() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Today.md", Self.note)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let rev = String(try #require(try app.note(id)?.rev))
            let other = WebBrowser(app)
            try await other.signIn()
            for csrf in [nil, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", try await other.csrf()] {
                let fields = [("rev", rev), ("done", "0")] + (csrf.map { [("csrf", $0)] } ?? [])
                #expect(await browser.post("/notes/\(id)/tasks", fields).status == 403)
            }
            let csrf = try await browser.csrf()
            #expect(await browser.post("/notes/\(id)/tasks", [("csrf", csrf), ("rev", rev), ("done", "0")], headers: ["Origin": "http://evil.test"]).status == 403)
            #expect(try app.note(id)?.content == Self.note)
        }
    }

    @Test("a task number past the note's tasks, or not a number, is refused and changes nothing")
    func outOfRangeIsRefused() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("Today.md", Self.note)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let rev = String(try #require(try app.note(id)?.rev))
            let csrf = try await browser.csrf()
            let past = await browser.post("/notes/\(id)/tasks", [("csrf", csrf), ("rev", rev), ("done", "3")])
            #expect(past.status == 422 && past.body.contains("no task number 3"))
            #expect(await browser.post("/notes/\(id)/tasks", [("csrf", csrf), ("rev", rev), ("done", "-1")]).status == 400)
            #expect(await browser.post("/notes/\(id)/tasks", [("csrf", csrf), ("rev", rev), ("done", "x")]).status == 400)
            #expect(try app.note(id)?.content == Self.note)
            #expect(try app.note(id)?.rev == Int64(rev))
        }
    }

    @Test("a page whose note has rendered task checkboxes carries their form with its revision and token")
    func formFollowsTheTasks() async throws {
        try await TestApp.with { app in
            let record = try #require(try app.note(try app.addNote("T.md", "- [ ] a\n")))
            let body = try FlavouredRenderer(taskForm: TaskPages.formID).render(Array("- [ ] a\n".utf8)).html
            let form = TaskPages.form(for: record, csrfToken: "tok", bodyHTML: body).description
            #expect(form.contains("id=\"note-tasks\"") && form.contains("name=\"rev\" value=\"\(record.rev)\"") && form.contains("value=\"tok\""))
            #expect(form.contains("action=\"/notes/\(record.id)/tasks\" method=\"post\""))
            #expect(TaskPages.form(for: record, csrfToken: "tok", bodyHTML: "<p>no tasks</p>") == .empty)
        }
    }
}
