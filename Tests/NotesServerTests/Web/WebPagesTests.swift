import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// What the pages do with notes: saving with a revision check, history, trash, tokens.
@Suite("Web pages")
struct WebPagesTests {
    @Test("GET / without a session shows the sign-in page (with the API link); /v1 paths stay the API's")
    func anonymousRoot() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            let root = await browser.get("/")
            #expect(root.status == 200 && root.body.contains("<h1>Notes</h1>") && root.body.contains("href=\"/v1/openapi.json\""))
            #expect(await browser.get("/trash").status == 303, "a page needs a session")
            #expect(await browser.get("/v1/limits").status == 200)
        }
    }

    @Test("a save based on an old revision that overlaps the saved change changes nothing and shows the typed text with the saved one")
    func staleSaveKeepsTheTypedText() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("N.md", "one\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let form = await browser.get("/notes/\(id)/edit")
            let rev = try #require(form.field("rev"))
            let csrf = try #require(form.field("csrf"))
            #expect(await browser.post("/notes/\(id)/edit", [("csrf", csrf), ("rev", rev), ("content", "one\r\ntwo\r\n")]).status == 303)
            #expect(try app.note(id)?.content == "one\ntwo\n", "CRLF from the browser becomes the note's LF")
            let stale = await browser.post("/notes/\(id)/edit", [("csrf", csrf), ("rev", rev), ("content", "uno\r\nmine\r\n")])
            #expect(stale.status == 409)
            #expect(stale.body.contains(">\nuno\nmine\n</textarea>"), "the typed text is in the editor")
            #expect(stale.body.contains("one\ntwo\n</pre>"), "the saved text is beside it")
            #expect(try app.note(id)?.content == "one\ntwo\n")
            let newRev = try #require(stale.field("rev"))
            #expect(await browser.post("/notes/\(id)/edit", [("csrf", csrf), ("rev", newRev), ("content", "uno\r\nmine\r\n")]).status == 303)
            #expect(try app.note(id)?.content == "uno\nmine\n")
        }
    }

    @Test("create, rename, delete and undelete from the trash")
    func noteLifecycle() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let created = await browser.post("/new", [("csrf", csrf), ("path", "work/Plan"), ("content", "hello")])
            let location = try #require(created.header("Location"))
            let id = try #require(NoteID(String(location.dropFirst("/notes/".count))))
            #expect(try app.note(id)?.path == "work/Plan.md")
            let taken = await browser.post("/new", [("csrf", csrf), ("path", "WORK/plan.md"), ("content", "x")])
            #expect(taken.status == 422 && taken.body.contains("already has that path"))
            let rev = String(try #require(try app.note(id)?.rev))
            #expect(await browser.post("/notes/\(id)/rename", [("csrf", csrf), ("rev", rev), ("path", "home/Plan.md")]).status == 303)
            #expect(try app.note(id)?.path == "home/Plan.md" && app.note(id)?.content == "hello")
            let renamed = String(try #require(try app.note(id)?.rev))
            #expect(await browser.post("/notes/\(id)/delete", [("csrf", csrf), ("rev", renamed)]).status == 303)
            let trash = await browser.get("/trash")
            #expect(trash.body.contains("home/Plan.md"))
            let tombstone = String(try #require(try app.note(id)?.rev))
            #expect(await browser.post("/trash/\(id)/restore", [("csrf", csrf), ("rev", tombstone)]).status == 303)
            #expect(try app.note(id)?.deleted == false && app.note(id)?.content == "hello")
        }
    }

    @Test("a revision's page shows the line diff to the current text, and restoring it makes a new revision")
    func historyDiffAndRestore() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("P.md", "a\nb\n")
            let first = try #require(try app.note(id)?.rev)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            #expect(await browser.post("/notes/\(id)/edit", [("csrf", csrf), ("rev", String(first)), ("content", "a\nc\n")]).status == 303)
            let page = await browser.get("/notes/\(id)/history/\(first)")
            #expect(page.body.contains("<div class=\"del\"><span class=\"visually-hidden\">removed: </span>b</div>"))
            #expect(page.body.contains("<div class=\"ins\"><span class=\"visually-hidden\">added: </span>c</div>"))
            let current = try #require(page.field("current"))
            #expect(await browser.post("/notes/\(id)/history/\(first)/restore", [("csrf", csrf), ("current", current)]).status == 303)
            #expect(try app.note(id)?.content == "a\nb\n")
            #expect(try #require(try app.note(id)?.rev) > Int64(current)!)
            let history = await browser.get("/notes/\(id)/history")
            #expect(history.body.contains("by \(TestAccount.username) · "), "each revision names its author")
        }
    }

    @Test("a personal token made on the account page is shown once and works on the API")
    func tokenShownOnce() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            try await browser.signIn()
            let made = await browser.post("/account/tokens", [("csrf", try await browser.csrf(from: "/account")), ("name", "ci"), ("scope", "read"), ("expires", "never")])
            #expect(made.status == 201 && made.header("Cache-Control") == "no-store")
            let secret = try #require(made.body.range(of: "npt_").map { String(made.body[$0.lowerBound...].prefix(47)) })
            #expect(await app.me(secret).status == 200)
            #expect(!(await browser.get("/account").body.contains(secret)))
        }
    }

    @Test("changing the password checks the current one, ends other sessions and keeps this browser signed in")
    func changePassword() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app), other = WebBrowser(app)
            try await browser.signIn()
            try await other.signIn()
            let csrf = try await browser.csrf(from: "/account")
            let wrong = await browser.post("/account/password", [("csrf", csrf), ("current", "nope nope"), ("new", "brand new pass"), ("repeat", "brand new pass")])
            #expect(wrong.status == 403)
            let changed = await browser.post("/account/password", [("csrf", csrf), ("current", TestAccount.password), ("new", "brand new pass"), ("repeat", "brand new pass")])
            #expect(changed.status == 303 && changed.header("Location") == "/account?done=password")
            #expect(await browser.get("/account", query: ["done": "password"]).body.contains("Password changed"), "this browser got a new session")
            #expect(await other.get("/").body.contains("Sign in to your notes"))
            #expect(try await app.login(TestAccount.username, "brand new pass").status == 200)
        }
    }

    @Test("search results mark the matched words from the API's highlight ranges")
    func searchHighlights() async throws {
        try await TestApp.with { app in
            _ = try app.addNote("Garden.md", "Plant **tomatoes** by the wall <b>now</b>\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let page = await browser.get("/search", query: ["q": "tomatoes"])
            #expect(page.body.contains("Plant **<mark>tomatoes</mark>** by the wall &lt;b&gt;now&lt;/b&gt;"))
        }
    }
}
