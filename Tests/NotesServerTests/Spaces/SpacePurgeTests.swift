import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A deleted space waits in the trash, restorable by its owner, until the owner purges it:
/// then its notes, revisions, attachments and contents are gone (docs/architecture.md §6.5).
/// Runs on SQLite and, on the PostgreSQL pass, on PostgreSQL.
@Suite("Spaces: trash and purge")
struct SpacePurgeTests {
    @Test("the owner restores a deleted space with its notes and members")
    func ownerRestoresDeletedSpace() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("runbook.md", "step 1", as: team.bob)
            #expect(await team.app.send("DELETE", team.teamPath, token: team.alice).status == 204)
            #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: team.bob).status == 404)
            #expect(await team.app.send("POST", "\(team.teamPath)/restore", token: team.bob).status == 404, "only the owner restores")
            #expect(await team.app.send("POST", "\(team.teamPath)/restore", token: team.alice).status == 200)
            #expect(try await team.paths(as: team.bob) == ["runbook.md"])
        }
    }

    @Test("purging removes the space's notes, revisions, attachments and stored contents, and it cannot be restored")
    func purgeRemovesEverything() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("runbook.md", "step 1", as: team.bob)
            let changed = try await team.app.send("PUT", "\(team.teamPath)/notes/\(note.id)", json: PutNoteRequest(path: "runbook.md", content: "step 2"),
                                                  token: team.bob, headers: ["If-Match": "\"\(note.rev)\""])
            #expect(changed.status == 200)
            let bob = SignedInApp(app: team.app, token: team.bob)
            let bytes = testBytes(300, seed: 11)
            let hash = SHA256.hex(of: bytes)
            #expect(try await bob.send("PUT", "\(team.teamPath)/content/\(hash)", body: Data(bytes)).status == 201)
            let operation = BatchOperation(op: .put, id: NoteID(), path: "img/a.png", ifNoneMatch: "*", kind: .attachment, hash: hash)
            #expect(try await bob.send("POST", "\(team.teamPath)/batch", json: BatchRequest(operations: [operation])).status == 200)
            let open = testBytes(200, seed: 12)
            #expect(try await bob.send("POST", "\(team.teamPath)/uploads", json: UploadRequest(hash: SHA256.hex(of: open), size: 200)).status == 201)
            // Alice's own attachment of the same bytes is hers and stays.
            try await SignedInApp(app: team.app, token: team.alice).upload(bytes)
            let space = team.team
            let alice = try team.account("alice")

            let live = await team.app.send("POST", "\(team.teamPath)/purge", token: team.alice)
            #expect(live.status == 409 && live.errorCode == "space_not_deleted", "a live space is never purged")
            #expect(await team.app.send("DELETE", team.teamPath, token: team.alice).status == 204)
            let byEditor = await team.app.send("POST", "\(team.teamPath)/purge", token: team.bob)
            #expect(byEditor.status == 404 && byEditor.errorCode == "space_not_found")
            #expect(try team.app.count("SELECT count(*) FROM notes WHERE user_id = \(space)") == 2)

            let purged = await team.app.send("POST", "\(team.teamPath)/purge", token: team.alice)
            #expect(purged.status == 204, "answered \(purged.status): \(purged.text)")
            for table in ["notes", "revisions", "contents", "uploads", "content_holds"] {
                #expect(try team.app.count("SELECT count(*) FROM \(table) WHERE user_id = \(space)") == 0, "\(table) of the purged space")
            }
            #expect(try team.app.count("SELECT count(*) FROM spaces WHERE id = \(space)") == 0)
            #expect(try team.app.count("SELECT count(*) FROM space_members WHERE space_id = \(space)") == 0)
            #expect(try storedContents(team.app).filter { $0.hasPrefix("\(space)/") }.isEmpty, "no content of the space is left in the store")
            #expect(try storedContents(team.app).contains { $0.hasPrefix("\(alice)/") && $0.hasSuffix(hash) }, "alice's own copy stays")

            let spaces = try await team.app.send("GET", "/v1/spaces", token: team.alice).decode(SpaceList.self).spaces
            #expect(spaces.map(\.name) == ["personal"], "the purged space is no longer in the owner's trash")
            #expect(await team.app.send("POST", "\(team.teamPath)/restore", token: team.alice).status == 404)
            #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: team.bob).status == 404)
        }
    }
}
