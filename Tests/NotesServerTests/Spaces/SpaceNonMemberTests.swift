import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A space answers those who are not its members exactly as a space that does not exist: 404
/// `space_not_found` on every route, and nothing of it in their search (docs/architecture.md
/// §6.5). Removal takes effect at the next request and ends a held long poll.
@Suite("Spaces: non-members and removal")
struct SpaceNonMemberTests {
    /// Every route of a space, its parameters filled in with `note` (the id) and a content hash.
    static func spaceRoutes(_ app: TestApp, space: Int64, note: NoteID) -> [(method: String, path: String)] {
        let hash = SHA256.hex(of: "secret attachment")
        return app.application.router.routeTable.compactMap { route in
            guard route.pattern.hasPrefix("/v1/spaces/:space/") else { return nil }
            let path = route.pattern.replacingOccurrences(of: ":space", with: String(space))
                .replacingOccurrences(of: ":id", with: note.value).replacingOccurrences(of: ":hash", with: hash)
                .replacingOccurrences(of: ":rev", with: "1").replacingOccurrences(of: ":index", with: "0")
                .replacingOccurrences(of: ":username", with: "alice")
            return (route.method, path)
        }
    }

    @Test("a non-member gets the same 404 on every route of the space as on a space that does not exist")
    func nonMemberGetsNotFoundEverywhere() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("secret.md", "the launch codes", as: team.alice)
            let routes = Self.spaceRoutes(team.app, space: team.team, note: note.id)
            #expect(routes.count >= 25, "every note route has its copy in a space: \(routes.count)")
            for route in routes + [("GET", "/v1/spaces/\(team.team)"), ("GET", "/v1/spaces/\(team.team)/members"),
                                   ("POST", "/v1/spaces/\(team.team)/leave"), ("DELETE", "/v1/spaces/\(team.team)")] {
                let real = await team.app.send(route.method, route.path, query: ["q": "launch"], body: Data("{}".utf8), token: team.dave)
                let missing = await team.app.send(route.method, route.path.replacingOccurrences(of: "/v1/spaces/\(team.team)", with: "/v1/spaces/999999"),
                                                  query: ["q": "launch"], body: Data("{}".utf8), token: team.dave)
                #expect(real.status == 404 && real.errorCode == "space_not_found", "\(route.method) \(route.path) answered \(real.status)")
                #expect(real.text == missing.text, "\(route.method) \(route.path): a real space and none answer alike")
            }
            let search = await team.app.send("GET", "/v1/search", query: ["q": "launch"], token: team.dave)
            #expect(search.status == 200 && !search.text.contains("secret.md") && !search.text.contains("launch"))
            let found = await team.app.send("GET", "\(team.teamPath)/search", query: ["q": "launch"], token: team.carol)
            #expect(found.text.contains("secret.md"), "a member finds it: the search did index it")
            #expect(try await team.app.send("GET", "/v1/spaces", token: team.dave).decode(SpaceList.self).spaces.map(\.name) == ["personal"])
        }
    }

    @Test("a removed member's next request answers 404 and their held long poll ends with 404")
    func removalTakesEffectAtOnce() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("a.md", "a", as: team.alice)
            let feed = await team.app.send("GET", "\(team.teamPath)/changes", token: team.bob)
            let cursor = try feed.decode(ChangesPage.self).cursor
            async let held = team.app.send("GET", "\(team.teamPath)/changes", query: ["since": cursor, "wait": "30"], token: team.bob)
            try await Self.waitUntilHeld(team.app, space: team.team)
            let removed = await team.app.send("DELETE", "\(team.teamPath)/members/bob", token: team.alice)
            #expect(removed.status == 204)
            let answer = await held
            #expect(answer.status == 404 && answer.errorCode == "space_not_found", "the held poll answered \(answer.status): \(answer.text)")
            #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: team.bob).errorCode == "space_not_found")
            #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: team.carol).status == 200, "the others keep access")
        }
    }

    @Test("a member's held long poll wakes on another member's change")
    func watcherWakesOnAnyMembersChange() async throws {
        try await SpaceFixture.with { team in
            let page = try await team.changesCarolSees { _ = try await team.create("new.md", "from bob", as: team.bob) }
            #expect(page.changes.map(\.path) == ["new.md"])
        }
    }

    /// Waits until a long poll is held on the space (the notifier counts it).
    static func waitUntilHeld(_ app: TestApp, space: Int64) async throws {
        for _ in 0..<500 where app.application.changeNotifier.waiting(user: space) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(app.application.changeNotifier.waiting(user: space) == 1, "the long poll is held")
    }
}
