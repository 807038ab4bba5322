import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// What the admin commands see of spaces: the rows that hold shared spaces are no accounts, and
/// deleting an account takes the spaces it owns with it (docs/architecture.md §6.5).
@Suite("Spaces: accounts and their spaces in the admin commands")
struct SpaceAccountDeletionTests {
    @Test("user list shows only accounts, and deleting an owner removes its spaces with their notes from every member")
    func deletingTheOwnerRemovesItsSpaces() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("shared.md", "shared words", as: team.bob)
            let users = UserStore(database: team.app.application.database, clock: team.app.clock.serverClock)
            #expect(try users.all().map(\.username) == ["alice", "bob", "carol", "dave"], "a space's holder is not an account")

            let alice = try #require(try users.find(username: "alice"))
            _ = try users.delete(userID: alice.id)
            let bobs = try await team.app.send("GET", "/v1/spaces", token: team.bob).decode(SpaceList.self).spaces
            #expect(bobs.map(\.name) == ["personal"])
            #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: team.bob).errorCode == "space_not_found")
            #expect(try team.app.count("SELECT count(*) FROM notes WHERE user_id = \(team.team)") == 0)
            #expect(try team.app.count("SELECT count(*) FROM users WHERE id = \(team.team)") == 0)
            #expect(try team.app.count("SELECT count(*) FROM space_members WHERE space_id = \(team.team)") == 0)
        }
    }
}
