import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The members page of a shared space: the owner adds, changes and removes members through
/// forms; the others read the list and may leave; the owner's actions are refused server-side
/// to everyone else (403 for a member, the one 404 for anyone else).
@Suite("Web space members")
struct WebSpaceMembersTests {
    @Test("the owner adds a member with a role, changes the role and removes the member, each taking effect at once")
    func ownerAddsChangesAndRemoves() async throws {
        try await SpaceFixture.with { fixture in
            let members = "/s/\(fixture.team)/members"
            let alice = try await WebSpacesTests.browser(fixture, "alice")
            let dave = try await WebSpacesTests.browser(fixture, "dave")
            #expect(await dave.get("/s/\(fixture.team)/").status == 404)

            let page = await alice.get(members)
            #expect(page.body.contains("action=\"\(members)/add\"") && page.body.contains(">Remove<"), "the owner has the forms")
            let csrf = try #require(page.field("csrf"))
            let added = await alice.post(members + "/add", [("csrf", csrf), ("username", "dave"), ("role", "viewer")])
            #expect(added.status == 303 && added.header("Location") == members + "?done=added", "\(added.status): \(added.body)")
            let daveHome = await dave.get("/s/\(fixture.team)/")
            #expect(daveHome.status == 200 && daveHome.body.contains("data-role=\"viewer\""))

            let changed = await alice.post(members + "/role", [("csrf", csrf), ("username", "dave"), ("role", "editor")])
            #expect(changed.status == 303)
            #expect(await dave.get("/s/\(fixture.team)/").body.contains("data-role=\"editor\""))

            let removed = await alice.post(members + "/remove", [("csrf", csrf), ("username", "dave")])
            #expect(removed.status == 303)
            #expect(await dave.get("/s/\(fixture.team)/").status == 404, "a removed member gets the 404 at the next request")
            #expect(!(await alice.get(members).body.contains(">dave<")))
        }
    }

    @Test("adding an unknown account or a member again shows the members page with the reason")
    func ownerSeesRefusalsOnThePage() async throws {
        try await SpaceFixture.with { fixture in
            let members = "/s/\(fixture.team)/members"
            let alice = try await WebSpacesTests.browser(fixture, "alice")
            let csrf = try await alice.csrf(from: members)
            let unknown = await alice.post(members + "/add", [("csrf", csrf), ("username", "<script>alert(1)</script>"), ("role", "editor")])
            #expect(unknown.status == 404 && unknown.body.contains("There is no account with this username."))
            #expect(!unknown.body.contains("<script>alert(1)"), "the typed name never lands as markup")
            let again = await alice.post(members + "/add", [("csrf", csrf), ("username", "bob"), ("role", "viewer")])
            #expect(again.status == 409 && again.body.contains("member of the space already"))
        }
    }

    @Test("editors and viewers see the member list read only, and their owner's posts are refused with 403; a non-member's with 404")
    func othersCannotManage() async throws {
        try await SpaceFixture.with { fixture in
            let members = "/s/\(fixture.team)/members"
            for name in ["bob", "carol"] {
                let browser = try await WebSpacesTests.browser(fixture, name)
                let page = await browser.get(members)
                #expect(page.status == 200)
                for member in ["alice", "bob", "carol"] { #expect(page.body.contains("<span class=\"title\">\(member)</span>")) }
                #expect(!page.body.contains("/members/add\"") && !page.body.contains("/members/remove\"") && !page.body.contains("/members/role\""),
                        "\(name) has no managing form")
                #expect(page.body.contains("action=\"/s/\(fixture.team)/leave\""), "\(name) may leave")
                let csrf = try #require(page.field("csrf"))
                for (action, fields) in [("add", [("username", "dave"), ("role", "editor")]), ("role", [("username", "carol"), ("role", "editor")]),
                                         ("remove", [("username", "carol")])] {
                    let posted = await browser.post("\(members)/\(action)", [("csrf", csrf)] + fields)
                    #expect(posted.status == 403, "\(name)'s \(action): \(posted.status)")
                }
            }
            let dave = try await WebSpacesTests.browser(fixture, "dave")
            let csrf = try await dave.csrf()
            #expect(await dave.post(members + "/remove", [("csrf", csrf), ("username", "carol")]).status == 404)
            #expect(await dave.post("/s/\(fixture.team)/leave", [("csrf", csrf)]).status == 404)
            let list = try await fixture.app.send("GET", "\(fixture.teamPath)/members", token: fixture.alice).decode(SpaceMemberList.self)
            #expect(list.members.map(\.username) == ["alice", "bob", "carol"], "nothing changed")
        }
    }

    @Test("a member leaves from the members page and loses the space at once; the owner cannot leave")
    func memberLeaves() async throws {
        try await SpaceFixture.with { fixture in
            let carol = try await WebSpacesTests.browser(fixture, "carol")
            let csrf = try await carol.csrf(from: "/s/\(fixture.team)/members")
            let left = await carol.post("/s/\(fixture.team)/leave", [("csrf", csrf)])
            #expect(left.status == 303 && left.header("Location") == "/?done=left")
            #expect(await carol.get("/s/\(fixture.team)/").status == 404)
            #expect(!(await carol.get("/").body.contains("/s/\(fixture.team)/")), "the switcher no longer lists Team")
            let alice = try await WebSpacesTests.browser(fixture, "alice")
            let owner = await alice.post("/s/\(fixture.team)/leave", [("csrf", try await alice.csrf())])
            #expect(owner.status == 409)
        }
    }
}
