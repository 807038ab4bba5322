import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Tags kept per note (`note_tags`): the tag pages and `tag:` search follow every change of a
/// note at once, and list every tagged note however many there are. Run on SQLite and, with
/// `NOTES_TEST_BACKEND=postgres`, on PostgreSQL.
@Suite("Server rendering: stored tags")
struct StoredTagTests {
    @Test("the tag pages and tag: search follow a save, an edit that removes the tag, a delete and a restore")
    func tagsFollowEveryChange() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let id = NoteID()
            func listed(_ tag: String) async throws -> Bool {
                let page = await pages.browser.get("/tags/\(tag)")
                try #require(page.status == 200)
                return page.body.contains("href=\"/notes/\(id)\"")
            }
            func found(_ tag: String) async throws -> Bool {
                let response = await api.app.send("GET", "/v1/search", query: ["q": "tag:\(tag)"], token: api.token)
                try #require(response.status == 200, "\(response.text)")
                return try response.decode(SearchResults.self).results.contains { $0.id == id }
            }
            /// Whether the tag's page lists the note, and whether `tag:` finds it.
            func carried(_ tag: String) async throws -> [Bool] {
                [try await listed(tag), try await found(tag)]
            }
            let saved = try await PublicationTests.put(api.app, id, "plan.md", "A plan. #alpha\n", token: api.token)
            #expect(try await carried("alpha") == [true, true], "a saved note is listed under its tag")
            #expect(await pages.browser.get("/tags").body.contains("href=\"/tags/alpha\">#alpha</a> <span class=\"muted small\">1 note</span>"))

            let edited = try await PublicationTests.put(api.app, id, "plan.md", "---\ntags: [beta]\n---\nA plan, no longer alpha.\n",
                                                      token: api.token, rev: saved.rev)
            #expect(try await carried("alpha") == [false, false], "an edit that removes a tag takes the note off its page")
            #expect(try await carried("beta") == [true, true], "a front-matter tag added by the edit lists the note")
            #expect(await !pages.browser.get("/tags").body.contains("#alpha"))

            let deleted = await api.app.send("DELETE", "/v1/notes/\(id)", token: api.token, headers: ["If-Match": "\"\(edited.rev)\""])
            let tombstone = try deleted.decode(NoteResource.self)
            #expect(tombstone.deleted)
            #expect(try await carried("beta") == [false, false], "a deleted note carries no tag")

            _ = try await PublicationTests.put(api.app, id, "plan.md", "---\ntags: [beta]\n---\nA plan, no longer alpha.\n",
                                              token: api.token, rev: tombstone.rev)
            #expect(try await carried("beta") == [true, true], "a restored note carries its tags again")
        }
    }

    @Test("a vault with more tagged notes than a page could once render (5,000) lists every one of them")
    func everyTaggedNoteOfALargeVaultIsListed() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let count = 5_050
            for start in stride(from: 0, to: count, by: 1000) {
                let operations = (start..<min(start + 1000, count)).map { index in
                    BatchOperation(op: .put, id: NoteID(), path: "vault/note-\(index).md", content: "Note \(index). #bulk\n", ifNoneMatch: "*")
                }
                let response = try await api.app.send("POST", "/v1/batch", json: BatchRequest(operations: operations), token: api.token)
                try #require(response.status == 200, "\(response.text)")
                try #require(try response.decode(BatchResponse.self).results.allSatisfy { $0.status == 201 })
            }
            let list = await pages.browser.get("/tags")
            #expect(list.body.contains("href=\"/tags/bulk\">#bulk</a> <span class=\"muted small\">\(count) notes</span>"))
            let page = await pages.browser.get("/tags/bulk")
            #expect(page.body.components(separatedBy: "<a class=\"title\" href=\"/notes/").count - 1 == count)
            #expect(page.body.contains(">note-0<") && page.body.contains(">note-\(count - 1)<"),
                    "the oldest notes are listed as well as the newest")
        }
    }

    @Test("notes saved before tags were kept are read at the first tag page, and again when the rendering changes")
    func notesWithoutKeptTagsAreReadAtTheFirstTagPage() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let id = try api.app.addNote("old.md", "An old note. #archive\n")
            #expect(await pages.browser.get("/tags/archive").body.contains("href=\"/notes/\(id)\""))
            try api.app.application.database.write { db in
                try db.run("DELETE FROM note_tags")
                try db.run("DELETE FROM tag_marks")
            }
            #expect(await pages.browser.get("/tags/archive").body.contains("href=\"/notes/\(id)\""),
                    "a user without a mark has every note read, as after the upgrade that adds the table")
            try api.app.application.database.write { db in
                try db.run("DELETE FROM note_tags")
                try db.run("UPDATE tag_marks SET renderer = renderer + 1000")
            }
            #expect(await pages.browser.get("/tags/archive").body.contains("href=\"/notes/\(id)\""),
                    "tags read by another rendering are read again")
        }
    }
}
