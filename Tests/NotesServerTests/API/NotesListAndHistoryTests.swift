import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Listing, deleting and the revision history of notes over real HTTP.
@Suite("Notes API: list, delete, history")
struct NotesListAndHistoryTests {
    @Test func listPagesByPathWithNextCursorAndFiltersByPath() async throws {
        try await LiveServer.with { _, api in
            let paths = ["b.md", "a.md", "e/x.md", "c.md", "d.md"]
            for path in paths { try await api.create(path, "content of \(path)") }
            var seen: [String] = []
            var after: String?
            var pages = 0
            repeat {
                var query = [("limit", "2")]
                if let after { query.append(("after", after)) }
                let response = try await api.send("GET", "/v1/notes", query: query)
                #expect(response.status == 200)
                let page = try response.decode(NoteListPage.self)
                #expect(page.notes.count <= 2)
                #expect(page.notes.allSatisfy { $0.content == nil }, "a list carries metadata only")
                seen += page.notes.map(\.path)
                after = page.nextCursor
                pages += 1
            } while after != nil && pages < 10
            #expect(seen == paths.sorted())
            #expect(pages == 3)

            let filtered = try await api.send("GET", "/v1/notes", query: [("path", "e/x.md")]).decode(NoteListPage.self)
            #expect(filtered.notes.map(\.path) == ["e/x.md"])
            #expect(filtered.nextCursor == nil)
            let none = try await api.send("GET", "/v1/notes", query: [("path", "zzz.md")]).decode(NoteListPage.self)
            #expect(none.notes.isEmpty)
            let badFilter = try await api.send("GET", "/v1/notes", query: [("path", "../x.md")])
            #expect(badFilter.status == 400)
            #expect(badFilter.errorCode == "invalid_path")
            for bad in ["0", "-1", "abc", "1000001"] {
                let response = try await api.send("GET", "/v1/notes", query: [("limit", bad)])
                #expect(response.status == 400, "limit=\(bad)")
                #expect(response.errorCode == "invalid_parameter")
            }
        }
    }

    @Test func deleteNeedsIfMatchLeavesATombstoneAndTheIdCanBeCreatedAgain() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("gone.md", "bye")
            let unguarded = try await api.send("DELETE", "/v1/notes/\(note.id)")
            #expect(unguarded.status == 428)
            let stale = try await api.send("DELETE", "/v1/notes/\(note.id)", headers: ["If-Match": "\"\(note.rev + 5)\""])
            #expect(stale.status == 412)
            #expect(try stale.decode(StaleBody.self).note?.content == "bye")

            let tombstone = try await api.delete(note)
            #expect(tombstone.deleted && tombstone.rev > note.rev && tombstone.id == note.id)
            let get = try await api.send("GET", "/v1/notes/\(note.id)")
            #expect(get.status == 404)
            #expect(get.isErrorBody)
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/html").status == 404)
            #expect(try await api.send("GET", "/v1/notes").decode(NoteListPage.self).notes.isEmpty)
            let changes = try await api.send("GET", "/v1/changes").decode(ChangesPage.self)
            #expect(changes.changes.map(\.id) == [note.id])
            #expect(changes.changes.first?.deleted == true)
            #expect(changes.changes.first?.rev == tombstone.rev)
            let missing = try await api.send("DELETE", "/v1/notes/\(NoteID())", headers: ["If-Match": "\"1\""])
            #expect(missing.status == 404)

            let again = try await api.create("gone.md", "back", id: note.id)
            #expect(again.id == note.id && again.rev > tombstone.rev && !again.deleted)
            let restored = try await api.send("GET", "/v1/notes/\(note.id)").decode(NoteResource.self)
            #expect(restored.content == "back")
        }
    }

    @Test func revisionsListNewestFirstAndOneRevisionCarriesItsContent() async throws {
        try await LiveServer.with { _, api in
            let first = try await api.create("h.md", "version one")
            let second = try await api.update(first, content: "version two")
            let list = try await api.send("GET", "/v1/notes/\(first.id)/revisions")
            #expect(list.status == 200)
            let revisions = try list.decode(RevisionList.self).revisions
            #expect(revisions.map(\.rev) == [second.rev, first.rev])
            #expect(revisions.allSatisfy { $0.content == nil && $0.id == first.id })
            #expect(revisions.last?.hash == SHA256.hex(of: "version one"))

            let old = try await api.send("GET", "/v1/notes/\(first.id)/revisions/\(first.rev)")
            #expect(old.status == 200)
            let base = try old.decode(RevisionResource.self)
            #expect(base.content == "version one" && base.rev == first.rev && base.path == "h.md")

            #expect(try await api.send("GET", "/v1/notes/\(first.id)/revisions/999").status == 404)
            let notANumber = try await api.send("GET", "/v1/notes/\(first.id)/revisions/abc")
            #expect(notANumber.status == 400)
            #expect(notANumber.errorCode == "invalid_parameter")
            #expect(try await api.send("GET", "/v1/notes/\(first.id)/revisions/0").status == 400)
            #expect(try await api.send("GET", "/v1/notes/\(NoteID())/revisions").status == 404)
        }
    }
}
