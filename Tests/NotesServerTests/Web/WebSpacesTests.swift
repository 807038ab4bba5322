import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A shared space in the web app: alice owns Team, bob edits, carol views, dave is no member.
/// Every page of `/s/<team>/…` goes through `SpaceAccess`; a viewer's page has no control that
/// changes the space, and its forms are refused when posted anyway.
@Suite("Web spaces")
struct WebSpacesTests {
    /// A browser signed in as `username` of the fixture.
    static func browser(_ fixture: SpaceFixture, _ username: String) async throws -> WebBrowser {
        let browser = WebBrowser(fixture.app)
        let signedIn = try await browser.signIn(username, SpaceFixture.password)
        try #require(signedIn.status == 303, "signing in \(username) answered \(signedIn.status)")
        return browser
    }

    /// The pages of one note in Team, and Team's own pages, as a member reads them.
    static func readPages(_ team: Int64, _ note: NoteID) -> [String] {
        let base = "/s/\(team)"
        return [base + "/", "\(base)/notes/\(note)", "\(base)/notes/\(note)/history", "\(base)/notes/\(note)/history/1",
                base + "/trash", base + "/search", base + "/tags", base + "/members"]
    }

    @Test("the switcher on every signed-in page lists the personal space and each space the account can read, and no other")
    func switcherListsReadableSpaces() async throws {
        try await SpaceFixture.with { fixture in
            let carol = try await Self.browser(fixture, "carol")
            for path in ["/", "/trash", "/account", "/s/\(fixture.team)/"] {
                let page = await carol.get(path)
                #expect(page.status == 200, "\(path): \(page.status)")
                #expect(page.body.contains("<nav class=\"space-switcher\" aria-label=\"Spaces\">"), "\(path) has the switcher")
                #expect(page.body.contains("<a href=\"/\"") && page.body.contains("href=\"/s/\(fixture.team)/\""), "\(path) leads to both spaces")
            }
            let dave = try await Self.browser(fixture, "dave")
            let home = await dave.get("/")
            #expect(home.body.contains("space-switcher") && !home.body.contains("/s/\(fixture.team)/"), "dave's switcher has no Team")
        }
    }

    @Test("every member reads every page kind of the space, with the space's name and their role on it")
    func membersReadEveryPageWithNameAndRole() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Plans/Launch.md", "# Launch\n\nship it\n", as: fixture.alice)
            for (name, role) in [("alice", "owner"), ("bob", "editor"), ("carol", "viewer")] {
                let browser = try await Self.browser(fixture, name)
                for path in Self.readPages(fixture.team, note.id) {
                    let page = await browser.get(path)
                    #expect(page.status == 200, "\(name) on \(path): \(page.status)")
                    #expect(page.body.contains("<strong class=\"space-name\">Team</strong>"), "\(name) on \(path) sees the space's name")
                    #expect(page.body.contains("data-role=\"\(role)\""), "\(name) on \(path) sees the role \(role)")
                }
                let notePage = await browser.get("/s/\(fixture.team)/notes/\(note.id)")
                #expect(notePage.body.contains("ship it"))
                #expect(notePage.body.contains("href=\"/s/\(fixture.team)/notes/\(note.id)/history\""), "links stay in the space")
                #expect(!notePage.body.contains("href=\"/notes/"), "no link leads out to the personal space")
            }
        }
    }

    @Test("a non-member gets the same 404 page on every page of the space as on a space that does not exist")
    func nonMemberGetsTheSame404AsNoSpace() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Secret plan.md", "the secret words\n", as: fixture.alice)
            let dave = try await Self.browser(fixture, "dave")
            let missing = Int64(999_999)
            for (path, nowhere) in zip(Self.readPages(fixture.team, note.id), Self.readPages(missing, note.id)) {
                let page = await dave.get(path)
                let none = await dave.get(nowhere)
                #expect(page.status == 404, "\(path): \(page.status)")
                #expect(page.body == none.body, "\(path) answers exactly as a space that does not exist")
                #expect(!page.body.contains("Secret plan") && !page.body.contains("Team"))
            }
            let csrf = try await dave.csrf()
            for path in ["/s/\(fixture.team)/new", "/s/\(fixture.team)/notes/\(note.id)/edit", "/s/\(fixture.team)/members/add"] {
                let posted = await dave.post(path, [("csrf", csrf), ("path", "x.md"), ("content", "x"), ("rev", "1"), ("username", "dave"), ("role", "editor")])
                #expect(posted.status == 404, "dave's POST \(path): \(posted.status)")
            }
            #expect(try await fixture.paths(as: fixture.alice) == ["Secret plan.md"], "dave changed nothing")
        }
    }

    @Test("a viewer's pages have no Edit, Delete, Rename, Restore, Undelete, Publish, New note or upload control")
    func viewerSeesNoWriteControls() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Tasks.md", "- [ ] one\n", as: fixture.alice)
            _ = try await fixture.app.send("PUT", "\(fixture.teamPath)/notes/\(note.id)", json: PutNoteRequest(path: "Tasks.md", content: "- [ ] two\n"),
                                           token: fixture.alice, headers: ["If-Match": "\"\(note.rev)\""])
            let gone = try await fixture.create("Gone.md", "bye\n", as: fixture.alice)
            let deleted = await fixture.app.send("DELETE", "\(fixture.teamPath)/notes/\(gone.id)", token: fixture.alice, headers: ["If-Match": "\"\(gone.rev)\""])
            try #require(deleted.status == 200 || deleted.status == 204, "delete answered \(deleted.status)")
            let base = "/s/\(fixture.team)"
            let carol = try await Self.browser(fixture, "carol")
            let pages = [base + "/", "\(base)/notes/\(note.id)", "\(base)/notes/\(note.id)/history/1", base + "/trash"]
            for path in pages {
                let body = await carol.get(path).body
                for control in ["/edit\"", "/delete\"", "/rename\"", "/restore\"", "/publish\"", ">New note<", "/upload\"", "/tasks\""] {
                    #expect(!body.contains(control), "carol's \(path) has no \(control)")
                }
            }
            let bob = try await Self.browser(fixture, "bob")
            let bobsNote = await bob.get("\(base)/notes/\(note.id)").body
            #expect(bobsNote.contains("href=\"\(base)/notes/\(note.id)/edit\"") && bobsNote.contains("action=\"\(base)/notes/\(note.id)/delete\""),
                    "an editor has the controls")
            #expect(await bob.get(base + "/trash").body.contains("action=\"\(base)/trash/\(gone.id)/restore\""))
        }
    }

    @Test("a viewer's posts of every writing form are refused with 403 and change nothing")
    func viewerPostsAreRefused() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Doc.md", "original\n", as: fixture.alice)
            let base = "/s/\(fixture.team)"
            let carol = try await Self.browser(fixture, "carol")
            let csrf = try await carol.csrf(from: base + "/")
            let forms: [(String, [(String, String)])] = [
                ("\(base)/notes/\(note.id)/edit", [("rev", String(note.rev)), ("content", "changed")]),
                ("\(base)/notes/\(note.id)/delete", [("rev", String(note.rev))]),
                ("\(base)/notes/\(note.id)/rename", [("rev", String(note.rev)), ("path", "Moved.md")]),
                ("\(base)/notes/\(note.id)/history/\(note.rev)/restore", [("current", String(note.rev))]),
                ("\(base)/notes/\(note.id)/tasks", [("rev", String(note.rev))]),
                ("\(base)/notes/\(note.id)/publish", [("expires", "never")]),
                ("\(base)/new", [("path", "New.md"), ("content", "new")]),
                ("\(base)/trash/\(note.id)/restore", [("rev", String(note.rev))]),
                ("\(base)/upload/start", [("path", "a.bin"), ("size", "1"), ("hash", String(repeating: "0", count: 64))]),
            ]
            for (path, fields) in forms {
                let page = await carol.post(path, [("csrf", csrf)] + fields)
                #expect(page.status == 403, "\(path): \(page.status)")
            }
            for path in ["\(base)/new", "\(base)/notes/\(note.id)/edit", "\(base)/notes/\(note.id)/rename", "\(base)/upload"] {
                #expect(await carol.get(path).status == 403, "the form page \(path) is refused too")
            }
            #expect(try await fixture.paths(as: fixture.alice) == ["Doc.md"])
            let unchanged = try #require(try fixture.app.application.notes.note(userID: fixture.team, id: note.id))
            #expect(unchanged.rev == note.rev && unchanged.content == "original\n")
            let preview = await carol.post("\(base)/preview", [("csrf", csrf), ("content", "**bold**")])
            #expect(preview.status == 200 && preview.body.contains("<strong>bold</strong>"), "the preview only reads")
        }
    }

    @Test("an editor's web edit lands in the space, stays in its pages, and History names the editor as its author")
    func editorWritesWithAuthor() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Runbook.md", "step one\n", as: fixture.alice)
            let base = "/s/\(fixture.team)"
            let bob = try await Self.browser(fixture, "bob")
            let csrf = try await bob.csrf(from: "\(base)/notes/\(note.id)/edit")
            let saved = await bob.post("\(base)/notes/\(note.id)/edit", [("csrf", csrf), ("rev", String(note.rev)), ("content", "step one\nstep two\n")])
            #expect(saved.status == 303 && saved.header("Location") == "\(base)/notes/\(note.id)?done=saved", "\(saved.status) \(saved.header("Location") ?? "")")
            let stored = try #require(try fixture.app.application.notes.note(userID: fixture.team, id: note.id))
            #expect(stored.content == "step one\nstep two\n")
            let history = await bob.get("\(base)/notes/\(note.id)/history").body
            #expect(history.contains("by bob · web"), "History names bob")
            let created = await bob.post("\(base)/new", [("csrf", csrf), ("path", "From bob.md"), ("content", "hi\n")])
            #expect(created.status == 303 && (created.header("Location") ?? "").hasPrefix(base + "/notes/"))
            #expect(try await fixture.paths(as: fixture.alice) == ["From bob.md", "Runbook.md"])
            #expect(await bob.get("/").body.contains("From bob") == false, "bob's personal space is untouched")
        }
    }

    @Test("search in a space finds the space's notes; the personal search of a non-member never shows a title of the space")
    func searchStaysInItsSpace() async throws {
        try await SpaceFixture.with { fixture in
            _ = try await fixture.create("Team secret.md", "marmalade plans\n", as: fixture.alice)
            _ = try fixture.app.addNote("Dave own.md", "marmalade at home\n", for: "dave")
            let bob = try await Self.browser(fixture, "bob")
            let inTeam = await bob.get("/s/\(fixture.team)/search", query: ["q": "marmalade"])
            #expect(inTeam.status == 200 && inTeam.body.contains("Team secret") && !inTeam.body.contains("Dave own"))
            let dave = try await Self.browser(fixture, "dave")
            let own = await dave.get("/search", query: ["q": "marmalade"])
            #expect(own.body.contains("Dave own") && !own.body.contains("Team secret") && !own.body.contains("plans"))
        }
    }

    @Test("the owner deletes a note of the space from its page and brings it back from the space's trash")
    func ownerDeletesAndUndeletes() async throws {
        try await SpaceFixture.with { fixture in
            let note = try await fixture.create("Old.md", "keep me\n", as: fixture.alice)
            let base = "/s/\(fixture.team)"
            let alice = try await Self.browser(fixture, "alice")
            let csrf = try await alice.csrf(from: "\(base)/notes/\(note.id)")
            let deleted = await alice.post("\(base)/notes/\(note.id)/delete", [("csrf", csrf), ("rev", String(note.rev))])
            #expect(deleted.status == 303 && (deleted.header("Location") ?? "").hasPrefix(base + "/"), "\(deleted.header("Location") ?? "")")
            #expect(try await fixture.paths(as: fixture.alice).isEmpty)
            let trash = await alice.get(base + "/trash")
            let tombstone = try #require(try fixture.app.application.notes.note(userID: fixture.team, id: note.id))
            #expect(trash.body.contains("action=\"\(base)/trash/\(note.id)/restore\""))
            let restored = await alice.post("\(base)/trash/\(note.id)/restore", [("csrf", csrf), ("rev", String(tombstone.rev))])
            #expect(restored.status == 303 && (restored.header("Location") ?? "").hasPrefix(base + "/"))
            #expect(try await fixture.paths(as: fixture.bob) == ["Old.md"])
        }
    }

    @Test("a note title and text that are script payloads stay text on the space's pages")
    func hostileNoteInSpaceIsEscaped() async throws {
        try await SpaceFixture.with { fixture in
            let title = "<img src=x onerror=alert(1)> =\"/notes"
            let note = try await fixture.create("\(title).md", "<script>window.pwned=1</script>\n[x](javascript:alert(1))\n", as: fixture.alice)
            let carol = try await Self.browser(fixture, "carol")
            for path in ["/s/\(fixture.team)/", "/s/\(fixture.team)/notes/\(note.id)", "/s/\(fixture.team)/notes/\(note.id)/history"] {
                let body = await carol.get(path).body
                #expect(body.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(path) shows the title as text")
                #expect(!body.contains("<img src=x") && !body.contains("<script>window.pwned"), "\(path) has no markup from the note")
                #expect(!body.contains("javascript:"), "\(path) has no script link")
            }
        }
    }
}
