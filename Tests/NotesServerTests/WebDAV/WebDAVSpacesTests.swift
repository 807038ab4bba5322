import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Shared spaces over WebDAV (docs/architecture.md §3.7, §6.5): `/dav/` lists every space the
/// account can read, `/dav/<space>/` serves it with the caller's role from `SpaceAccess`, and
/// nothing of a space answers anything but 404 to an account that cannot read it. Runs on
/// SQLite and, on the PostgreSQL pass, on PostgreSQL.
@Suite("WebDAV: spaces")
struct WebDAVSpacesTests {
    /// A LOCK body asking for an exclusive write lock.
    static let lockInfo = #"<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>"#
        + "<D:locktype><D:write/></D:locktype></D:lockinfo>"

    /// Every method a WebDAV client changes something with, with a body that would succeed.
    static var writes: [(method: String, body: String, headers: [String: String])] {
        let propertyUpdate = #"<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z">"#
            + "<D:set><D:prop><Z:colour>blue</Z:colour></D:prop></D:set></D:propertyupdate>"
        let destination = ["Destination": "http://notes.test/dav/Team/elsewhere.md"]
        return [
            ("PUT", "changed", [:]), ("DELETE", "", [:]), ("MKCOL", "", [:]), ("PROPPATCH", propertyUpdate, [:]), ("LOCK", lockInfo, [:]),
            ("COPY", "", destination), ("MOVE", "", destination),
        ].map { ($0.0, $0.1, $0.2) }
    }

    @Test("/dav/ lists personal and each shared space a member can read, and none to an account outside them")
    func rootListsReadableSpaces() async throws {
        try await SpaceFixture.with { team in
            for member in ["alice", "bob", "carol"] {
                let auth = try await team.davAuthorization(member)
                let listing = await team.app.dav("PROPFIND", "/dav/", authorization: auth, headers: ["Depth": "1"])
                #expect(listing.status == 207)
                #expect(listing.hrefs == ["/dav/", "/dav/personal/", "/dav/Team/"], "\(member)'s listing")
            }
            let dave = try await team.davAuthorization("dave")
            #expect(await team.app.dav("PROPFIND", "/dav/", authorization: dave, headers: ["Depth": "1"]).hrefs == ["/dav/", "/dav/personal/"])
        }
    }

    @Test("another account's token gets 404 on every method on the space, for a path that exists and one that does not")
    func anotherAccountGets404() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("plan.md", "the plan", as: team.alice)
            let dave = try await team.davAuthorization("dave")
            for path in ["/dav/Team/", "/dav/Team/plan.md", "/dav/Team/nothing.md", "/dav/alice~Team/plan.md"] {
                for method in ["GET", "HEAD", "PROPFIND"] {
                    let answer = await team.app.dav(method, path, authorization: dave, headers: ["Depth": "0"])
                    #expect(answer.status == 404, "\(method) \(path) answered \(answer.status)")
                }
                for write in Self.writes {
                    let answer = await team.app.dav(write.method, path, body: write.body, authorization: dave, headers: write.headers)
                    #expect(answer.status == 404, "\(write.method) \(path) answered \(answer.status)")
                }
            }
            #expect(try await team.paths(as: team.alice) == ["plan.md"])
        }
    }

    @Test("a viewer reads the space, and every write method answers 403 and changes nothing")
    func viewerGets403OnEveryWrite() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("plan.md", "the plan", as: team.alice)
            let carol = try await team.davAuthorization("carol")
            let read = await team.app.dav("GET", "/dav/Team/plan.md", authorization: carol)
            #expect(read.status == 200 && read.text == "the plan")
            for write in Self.writes {
                let answer = await team.app.dav(write.method, "/dav/Team/plan.md", body: write.body, authorization: carol, headers: write.headers)
                #expect(answer.status == 403, "\(write.method) answered \(answer.status): \(answer.text)")
            }
            for (method, path) in [("PUT", "/dav/Team/new.md"), ("MKCOL", "/dav/Team/folder")] {
                #expect(await team.app.dav(method, path, body: method == "PUT" ? "new" : "", authorization: carol).status == 403, "\(method) \(path)")
            }
            let personal = try await team.davAuthorization("carol", name: "mine")
            #expect(await team.app.dav("PUT", "/dav/personal/mine.md", body: "mine", authorization: personal).status == 201)
            let intoTeam = await team.app.dav("COPY", "/dav/personal/mine.md", authorization: personal,
                                              headers: ["Destination": "http://notes.test/dav/Team/mine.md"])
            #expect(intoTeam.status == 403, "a copy into the space answered \(intoTeam.status)")
            let current = try await team.app.send("GET", "\(team.teamPath)/notes/\(note.id)", token: team.alice).decode(NoteResource.self)
            #expect(current.rev == note.rev && current.content == "the plan")
            #expect(try await team.paths(as: team.alice) == ["plan.md"])
            let properties = await team.app.dav("PROPFIND", "/dav/Team/plan.md", authorization: carol, headers: ["Depth": "0"])
            #expect(properties.status == 207 && !properties.text.contains("colour") && !properties.text.contains("activelock"))
        }
    }

    @Test("an editor's read-scoped token reads the space and cannot write it")
    func readTokenCannotWrite() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("plan.md", "the plan", as: team.alice)
            let reader = try await team.davAuthorization("bob", scope: .read)
            #expect(await team.app.dav("GET", "/dav/Team/plan.md", authorization: reader).text == "the plan")
            let put = await team.app.dav("PUT", "/dav/Team/plan.md", body: "bob's plan", authorization: reader)
            #expect(put.status == 403 && put.text.contains("insufficient_scope"), "answered \(put.status): \(put.text)")
            #expect(await team.app.dav("PUT", "/dav/Team/plan.md", body: "bob's plan", authorization: try await team.davAuthorization("bob")).status == 204)
        }
    }

    @Test("a removed member gets 404 at their next request, and a space in the trash is neither listed nor served")
    func removedMemberAndDeletedSpaceGet404() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("plan.md", "the plan", as: team.alice)
            let bob = try await team.davAuthorization("bob")
            let alice = try await team.davAuthorization("alice")
            #expect(await team.app.dav("GET", "/dav/Team/plan.md", authorization: bob).status == 200)
            #expect(await team.app.send("DELETE", "\(team.teamPath)/members/bob", token: team.alice).status == 204)
            #expect(await team.app.dav("GET", "/dav/Team/plan.md", authorization: bob).status == 404)
            #expect(await team.app.dav("PUT", "/dav/Team/plan.md", body: "late", authorization: bob).status == 404)
            #expect(await team.app.dav("PROPFIND", "/dav/", authorization: bob, headers: ["Depth": "1"]).hrefs == ["/dav/", "/dav/personal/"])

            #expect(await team.app.send("DELETE", team.teamPath, token: team.alice).status == 204)
            #expect(await team.app.dav("PROPFIND", "/dav/", authorization: alice, headers: ["Depth": "1"]).hrefs == ["/dav/", "/dav/personal/"])
            #expect(await team.app.dav("GET", "/dav/Team/plan.md", authorization: alice).status == 404)
            #expect(await team.app.dav("PROPFIND", "/dav/Team/", authorization: alice, headers: ["Depth": "0"]).status == 404)
        }
    }

    @Test("an editor's PUT, MOVE and DELETE reach the owner through the API with the editor as the author, id kept")
    func editorsWritesReachTheOwner() async throws {
        try await SpaceFixture.with { team in
            let bob = try await team.davAuthorization("bob")
            #expect(await team.app.dav("PUT", "/dav/Team/soup.md", body: "Leek and potato", authorization: bob).status == 201)
            let list = try await team.app.send("GET", "\(team.teamPath)/notes", token: team.alice).decode(NoteListPage.self).notes
            let soup = try #require(list.first { $0.path == "soup.md" })
            #expect(await team.app.dav("MKCOL", "/dav/Team/recipes", authorization: bob).status == 201)
            let moved = await team.app.dav("MOVE", "/dav/Team/soup.md", authorization: bob,
                                           headers: ["Destination": "http://notes.test/dav/Team/recipes/soup.md"])
            #expect(moved.status == 201)
            let after = try await team.app.send("GET", "\(team.teamPath)/notes/\(soup.id)", token: team.alice).decode(NoteResource.self)
            #expect(after.path == "recipes/soup.md" && after.content == "Leek and potato", "the move kept the note's id")
            #expect(await team.app.dav("DELETE", "/dav/Team/recipes/soup.md", authorization: bob).status == 204)
            let revisions = try await team.app.send("GET", "\(team.teamPath)/notes/\(soup.id)/revisions", token: team.alice)
                .decode(RevisionList.self).revisions
            #expect(revisions.count == 3)
            #expect(revisions.map(\.author) == ["bob", "bob", "bob"])
            let trash = await team.app.send("GET", "\(team.teamPath)/trash", token: team.alice)
            #expect(trash.status == 200 && trash.text.contains("recipes/soup.md"))
            #expect(try await team.paths(as: team.bob).isEmpty)
            let personal = try await team.app.send("GET", "/v1/notes", token: team.bob).decode(NoteListPage.self)
            #expect(personal.notes.isEmpty, "nothing of the space lands in the writer's personal space")
        }
    }

    @Test("a member's held long poll on the space wakes on another member's WebDAV write")
    func davWriteWakesMembersLongPoll() async throws {
        try await SpaceFixture.with { team in
            let bob = try await team.davAuthorization("bob")
            let page = try await team.changesCarolSees {
                #expect(await team.app.dav("PUT", "/dav/Team/news.md", body: "news", authorization: bob).status == 201)
            }
            #expect(page.changes.map(\.path) == ["news.md"])
        }
    }

    @Test("spaces whose names clash are listed as OWNER~NAME, each serves its own notes, and the bare name answers 404")
    func clashingNamesAreQualified() async throws {
        try await SpaceFixture.with { team in
            let own = try await team.app.send("POST", "/v1/spaces", json: SpaceNameRequest(name: "team"), token: team.bob)
            try #require(own.status == 201)
            let bobsTeam = try own.decode(SpaceResource.self).id
            let bob = try await team.davAuthorization("bob")
            let listing = await team.app.dav("PROPFIND", "/dav/", authorization: bob, headers: ["Depth": "1"])
            #expect(Set(listing.hrefs) == ["/dav/", "/dav/personal/", "/dav/alice~Team/", "/dav/bob~team/"])
            #expect(await team.app.dav("PUT", "/dav/alice~Team/a.md", body: "alice's team", authorization: bob).status == 201)
            #expect(await team.app.dav("PUT", "/dav/bob~team/b.md", body: "bob's team", authorization: bob).status == 201)
            #expect(await team.app.dav("GET", "/dav/Team/a.md", authorization: bob).status == 404)
            #expect(try await team.paths(as: team.alice) == ["a.md"])
            let bobs = try await team.app.send("GET", "/v1/spaces/\(bobsTeam)/notes", token: team.bob).decode(NoteListPage.self)
            #expect(bobs.notes.map(\.path) == ["b.md"])
            let alice = try await team.davAuthorization("alice")
            #expect(await team.app.dav("GET", "/dav/Team/a.md", authorization: alice).text == "alice's team", "alice has one Team")
            #expect(await team.app.dav("GET", "/dav/alice~Team/a.md", authorization: alice).text == "alice's team")
        }
    }

    @Test("a lock an editor takes in the space holds against another member's write until its token is sent")
    func lockHoldsBetweenMembers() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("plan.md", "the plan", as: team.alice)
            let bob = try await team.davAuthorization("bob")
            let alice = try await team.davAuthorization("alice")
            let locked = await team.app.dav("LOCK", "/dav/Team/plan.md", body: Self.lockInfo, authorization: bob)
            #expect(locked.status == 200 && locked.text.contains("<D:href>/dav/Team/plan.md</D:href>"))
            let token = try #require(locked.headers["lock-token"])
            #expect(await team.app.dav("PUT", "/dav/alice~Team/plan.md", body: "alice", authorization: alice).status == 423)
            #expect(await team.app.dav("PUT", "/dav/Team/plan.md", body: "bob", authorization: bob, headers: ["If": "(\(token))"]).status == 204)
        }
    }
}

extension SpaceFixture {
    /// Basic credentials for WebDAV: `username` and a new personal token of theirs with `scope`.
    func davAuthorization(_ username: String, scope: TokenScope = .write, name: String? = nil) async throws -> String {
        let session = try await Self.token(app, username)
        let token = try await app.createToken(name ?? "dav-\(scope.rawValue)-\(UUID().uuidString.prefix(8))", scope: scope, using: session)
        return TestApp.basic(username, token.token ?? "")
    }
}
