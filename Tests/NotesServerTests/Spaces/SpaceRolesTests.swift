import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Each role against each kind of operation on a space, through the router as the API and the
/// batch see it (docs/architecture.md §6.5). Runs on SQLite and, on the PostgreSQL pass, on
/// PostgreSQL.
@Suite("Spaces: roles")
struct SpaceRolesTests {
    @Test("members list the space with their role, and an editor's note reaches the owner and the viewer")
    func membersSeeTheSpaceAndEachOthersNotes() async throws {
        try await SpaceFixture.with { team in
            for (token, role) in [(team.alice, SpaceRole.owner), (team.bob, .editor), (team.carol, .viewer)] {
                let spaces = try await team.app.send("GET", "/v1/spaces", token: token).decode(SpaceList.self).spaces
                #expect(spaces.map(\.name) == ["personal", "Team"])
                #expect(spaces.first { $0.id == team.team }?.role == role)
                #expect(spaces.first { $0.id == team.team }?.owner == "alice")
            }
            _ = try await team.create("recipes/soup.md", "Leek and potato", as: team.bob)
            #expect(try await team.paths(as: team.alice) == ["recipes/soup.md"])
            #expect(try await team.paths(as: team.carol) == ["recipes/soup.md"])
            let personal = try await team.app.send("GET", "/v1/notes", token: team.bob).decode(NoteListPage.self)
            #expect(personal.notes.isEmpty, "a space's note is not in the writer's personal space")
        }
    }

    @Test("a viewer reads the space but every write is refused with read_only_space and changes nothing")
    func viewerNeverWrites() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("plan.md", "the plan", as: team.alice)
            let path = team.teamPath
            #expect(await team.app.send("GET", "\(path)/notes/\(note.id)", token: team.carol).status == 200)
            #expect(await team.app.send("GET", "\(path)/changes", token: team.carol).status == 200)
            #expect(await team.app.send("GET", "\(path)/notes/\(note.id)/revisions", token: team.carol).status == 200)
            #expect(await team.app.send("GET", "\(path)/search", query: ["q": "plan"], token: team.carol).status == 200)

            let put = PutNoteRequest(path: "plan.md", content: "carol's plan")
            let writes: [TestAPIResponse] = [
                try await team.app.send("PUT", "\(path)/notes/\(note.id)", json: put, token: team.carol, headers: ["If-Match": "\"\(note.rev)\""]),
                try await team.app.send("PUT", "\(path)/notes/\(NoteID())", json: put, token: team.carol, headers: ["If-None-Match": "*"]),
                await team.app.send("DELETE", "\(path)/notes/\(note.id)", token: team.carol, headers: ["If-Match": "\"\(note.rev)\""]),
                try await team.app.send("POST", "\(path)/batch", json: BatchRequest(operations: [
                    BatchOperation(op: .delete, id: note.id, ifMatch: note.rev),
                ]), token: team.carol),
                await team.app.send("POST", "\(path)/notes/\(note.id)/purge", token: team.carol, headers: ["If-Match": "\"\(note.rev)\""]),
                try await team.app.send("POST", "\(path)/notes/\(note.id)/publication", json: CreatePublicationRequest(), token: team.carol),
                try await team.app.send("POST", "\(path)/uploads", json: UploadRequest(hash: SHA256.hex(of: "x"), size: 1), token: team.carol),
                try await team.app.send("POST", "\(path)/content/missing", json: ContentMissingRequest(hashes: [SHA256.hex(of: "x")]),
                                        token: team.carol),
            ]
            for answer in writes {
                #expect(answer.status == 403 && answer.errorCode == "read_only_space", "answered \(answer.status): \(answer.text)")
            }
            let current = try await team.app.send("GET", "\(path)/notes/\(note.id)", token: team.alice).decode(NoteResource.self)
            #expect(current.rev == note.rev && current.content == "the plan")
            #expect(try await team.paths(as: team.alice) == ["plan.md"])
        }
    }

    @Test("an editor writes, deletes and restores notes, but cannot manage members, rename or delete the space")
    func editorWritesButDoesNotManage() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("runbook.md", "step 1", as: team.alice)
            let path = team.teamPath
            let deleted = await team.app.send("DELETE", "\(path)/notes/\(note.id)", token: team.bob, headers: ["If-Match": "\"\(note.rev)\""])
            #expect(deleted.status == 200)
            let trash = await team.app.send("GET", "\(path)/trash", token: team.bob)
            #expect(trash.status == 200 && trash.text.contains("runbook.md"))
            let restored = try await team.app.send("PUT", "\(path)/notes/\(note.id)", json: PutNoteRequest(path: "runbook.md", content: "step 1"),
                                                   token: team.bob, headers: ["If-None-Match": "*"])
            #expect(restored.status == 201 || restored.status == 200, "restore answered \(restored.status): \(restored.text)")

            let managing: [TestAPIResponse] = [
                try await team.app.send("POST", "\(path)/members", json: SpaceMemberRequest(username: "dave", role: .viewer), token: team.bob),
                try await team.app.send("PATCH", "\(path)/members/carol", json: SpaceMemberRequest(role: .editor), token: team.bob),
                await team.app.send("DELETE", "\(path)/members/carol", token: team.bob),
                try await team.app.send("PATCH", path, json: SpaceNameRequest(name: "Mine"), token: team.bob),
                await team.app.send("DELETE", path, token: team.bob),
                try await team.app.send("POST", "\(path)/transfer", json: SpaceMemberRequest(username: "bob"), token: team.bob),
            ]
            for answer in managing {
                #expect(answer.status == 403 && answer.errorCode == "owner_only", "answered \(answer.status): \(answer.text)")
            }
            let members = try await team.app.send("GET", "\(path)/members", token: team.bob).decode(SpaceMemberList.self).members
            #expect(members.map(\.username) == ["alice", "bob", "carol"])
            #expect(members.map(\.role) == [.owner, .editor, .viewer])
            #expect(try await team.app.send("GET", path, token: team.bob).decode(SpaceResource.self).name == "Team")
        }
    }

    @Test("the owner cannot leave, be removed or demoted without transferring; after a transfer they can leave")
    func lastOwnerCannotLeaveWithoutTransfer() async throws {
        try await SpaceFixture.with { team in
            let path = team.teamPath
            let leave = await team.app.send("POST", "\(path)/leave", token: team.alice)
            #expect(leave.status == 409 && leave.errorCode == "owner_must_transfer")
            #expect(await team.app.send("DELETE", "\(path)/members/alice", token: team.alice).errorCode == "owner_must_transfer")
            let demote = try await team.app.send("PATCH", "\(path)/members/alice", json: SpaceMemberRequest(role: .viewer), token: team.alice)
            #expect(demote.errorCode == "owner_must_transfer")

            let transferred = try await team.app.send("POST", "\(path)/transfer", json: SpaceMemberRequest(username: "bob"), token: team.alice)
            #expect(transferred.status == 200, "transfer answered \(transferred.status): \(transferred.text)")
            #expect(try transferred.decode(SpaceResource.self).owner == "bob")
            #expect(await team.app.send("POST", "\(path)/leave", token: team.alice).status == 204)
            #expect(await team.app.send("GET", path, token: team.alice).status == 404)
            #expect(try await team.app.send("GET", path, token: team.bob).decode(SpaceResource.self).role == .owner)
            #expect(await team.app.send("POST", "\(path)/leave", token: team.carol).status == 204, "any other member may leave")
        }
    }

    @Test("every revision names the member who wrote it")
    func revisionsNameTheirAuthor() async throws {
        try await SpaceFixture.with { team in
            let note = try await team.create("minutes.md", "alice's draft", as: team.alice)
            let path = team.teamPath
            let edit = try await team.app.send("POST", "\(path)/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: note.id, path: "minutes.md", content: "bob's edit", ifMatch: note.rev),
            ]), token: team.bob)
            #expect(edit.status == 200)
            let after = try edit.decode(BatchResponse.self).results[0].note
            let deleted = await team.app.send("DELETE", "\(path)/notes/\(note.id)", token: team.bob,
                                              headers: ["If-Match": "\"\(try #require(after?.rev))\""])
            #expect(deleted.status == 200)
            let revisions = try await team.app.send("GET", "\(path)/notes/\(note.id)/revisions", token: team.carol)
                .decode(RevisionList.self).revisions
            #expect(revisions.map(\.author) == ["bob", "bob", "alice"])
            let one = await team.app.send("GET", "\(path)/notes/\(note.id)/revisions/\(note.rev)", token: team.carol)
            #expect(try one.decode(RevisionResource.self).author == "alice")

            let own = try await team.app.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: "mine.md", content: "x"),
                                              token: team.dave, headers: ["If-None-Match": "*"]).decode(NoteResource.self)
            let ownRevisions = try await team.app.send("GET", "/v1/notes/\(own.id)/revisions", token: team.dave).decode(RevisionList.self)
            #expect(ownRevisions.revisions.map(\.author) == ["dave"], "in the personal space the author is the account")
        }
    }

    @Test("a deleted space answers 404 to every member until its owner restores it")
    func deletedSpaceIsGoneUntilRestored() async throws {
        try await SpaceFixture.with { team in
            _ = try await team.create("a.md", "a", as: team.bob)
            #expect(await team.app.send("DELETE", team.teamPath, token: team.alice).status == 204)
            for token in [team.alice, team.bob, team.carol] {
                #expect(await team.app.send("GET", "\(team.teamPath)/notes", token: token).errorCode == "space_not_found")
            }
            let listed = try await team.app.send("GET", "/v1/spaces", token: team.alice).decode(SpaceList.self).spaces
            #expect(listed.first { $0.id == team.team }?.deletedAt != nil, "the owner sees it in the trash")
            let bobs = try await team.app.send("GET", "/v1/spaces", token: team.bob).decode(SpaceList.self).spaces
            #expect(!bobs.contains { $0.id == team.team })
            #expect(await team.app.send("POST", "\(team.teamPath)/restore", token: team.bob).status == 404)
            #expect(await team.app.send("POST", "\(team.teamPath)/restore", token: team.alice).status == 200)
            #expect(try await team.paths(as: team.carol) == ["a.md"])
        }
    }

    @Test("names are unique per owner; the personal space cannot be shared, renamed, deleted or left")
    func namesAndThePersonalSpace() async throws {
        try await SpaceFixture.with { team in
            let again = try await team.app.send("POST", "/v1/spaces", json: SpaceNameRequest(name: "team"), token: team.alice)
            #expect(again.status == 409 && again.errorCode == "space_name_taken")
            let bobs = try await team.app.send("POST", "/v1/spaces", json: SpaceNameRequest(name: "Team"), token: team.bob)
            #expect(bobs.status == 201, "another owner may use the name")
            let bad = try await team.app.send("POST", "/v1/spaces", json: SpaceNameRequest(name: "a/b"), token: team.bob)
            #expect(bad.status == 400 && bad.errorCode == "invalid_space_name")

            let spaces = try await team.app.send("GET", "/v1/spaces", token: team.alice).decode(SpaceList.self).spaces
            let personal = try #require(spaces.first { $0.personal })
            let share = try await team.app.send("POST", "/v1/spaces/\(personal.id)/members", json: SpaceMemberRequest(username: "bob", role: .viewer),
                                                token: team.alice)
            #expect(share.errorCode == "personal_space")
            #expect(await team.app.send("DELETE", "/v1/spaces/\(personal.id)", token: team.alice).errorCode == "personal_space")
            #expect(await team.app.send("POST", "/v1/spaces/\(personal.id)/leave", token: team.alice).errorCode == "personal_space")
            // The personal space by its id is the one /v1/notes addresses.
            let note = try await team.app.send("PUT", "/v1/spaces/\(personal.id)/notes/\(NoteID())", json: PutNoteRequest(path: "p.md", content: "p"),
                                               token: team.alice, headers: ["If-None-Match": "*"])
            #expect(note.status == 201)
            let listed = try await team.app.send("GET", "/v1/notes", token: team.alice).decode(NoteListPage.self)
            #expect(listed.notes.map(\.path) == ["p.md"])
        }
    }
}
