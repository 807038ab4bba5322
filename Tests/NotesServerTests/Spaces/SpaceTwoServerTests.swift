import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Two servers on one PostgreSQL database: a removal made through one is refused at once by
/// the other, whose held long poll of the removed member ends (docs/architecture.md §6.5).
@Suite("Spaces: two servers on one PostgreSQL database",
       .enabled(if: TestPostgresCluster.shouldRun && TestBackend.current == .postgres,
                "runs on the PostgreSQL pass: two servers share only a PostgreSQL database"))
struct SpaceTwoServerTests {
    @Test("a member removed through one server is refused by the other at once, and its held long poll there ends with 404")
    func removalThroughOneServerIsRefusedByTheOther() async throws {
        let first = try TestApp()
        defer { first.close() }
        let team = try await SpaceFixture.make(first)
        let second = try TestApp { $0.databasePath = first.databaseLocation }
        defer { second.close() }
        _ = try await team.create("a.md", "a", as: team.alice)

        let cursor = try await second.send("GET", "\(team.teamPath)/changes", token: team.bob).decode(ChangesPage.self).cursor
        #expect(await second.send("GET", "\(team.teamPath)/notes", token: team.bob).status == 200)
        async let held = second.send("GET", "\(team.teamPath)/changes", query: ["since": cursor, "wait": "30"], token: team.bob)
        try await SpaceNonMemberTests.waitUntilHeld(second, space: team.team)

        #expect(await first.send("DELETE", "\(team.teamPath)/members/bob", token: team.alice).status == 204)
        let refused = await second.send("GET", "\(team.teamPath)/notes", token: team.bob)
        #expect(refused.status == 404 && refused.errorCode == "space_not_found", "the other server answered \(refused.status)")
        let answer = await held
        #expect(answer.status == 404 && answer.errorCode == "space_not_found", "the held poll answered \(answer.status): \(answer.text)")
        #expect(await second.send("GET", "\(team.teamPath)/notes", token: team.carol).status == 200)
    }
}
