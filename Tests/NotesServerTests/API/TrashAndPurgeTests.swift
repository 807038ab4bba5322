import Foundation
import NotesCommandLine
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The trash, purging a note for good, and the revision retention, over real HTTP.
@Suite("Notes API: trash, purge, revision retention")
struct TrashAndPurgeTests {
    @Test func trashListsDeletedNotesNewestFirstWithTheirPurgeTimeAndFiltersByPath() async throws {
        try await LiveServer.with(["--tombstone-ttl", "3600"]) { _, api in
            let kept = try await api.create("kept.md", "still here")
            let first = try await api.create("dir/first.md", "first words")
            let edited = try await api.update(first, content: "first words, edited")
            let second = try await api.create("second.md", "second")
            let firstGone = try await api.delete(edited)
            let secondGone = try await api.delete(second)

            let page = try await api.send("GET", "/v1/trash").decode(TrashPage.self)
            #expect(page.notes.map(\.path) == ["second.md", "dir/first.md"], "newest deletion first, live notes not listed")
            #expect(page.nextCursor == nil)
            let entry = try #require(page.notes.last)
            #expect(entry.id == first.id && entry.rev == firstGone.rev && entry.lastRev == edited.rev)
            #expect(entry.size == "first words, edited".utf8.count)
            #expect(entry.deletedAt == firstGone.updatedAt)
            let deleted = try #require(ISO8601DateFormatter.withFraction.date(from: entry.deletedAt))
            let purge = try #require(ISO8601DateFormatter.withFraction.date(from: entry.purgeAt))
            #expect(purge.timeIntervalSince(deleted) == 3600)

            let filtered = try await api.send("GET", "/v1/trash", query: [("path", "dir/first.md")]).decode(TrashPage.self)
            #expect(filtered.notes.map(\.id) == [first.id])
            let paged = try await api.send("GET", "/v1/trash", query: [("limit", "1")]).decode(TrashPage.self)
            #expect(paged.notes.map(\.rev) == [secondGone.rev])
            let rest = try await api.send("GET", "/v1/trash", query: [("limit", "1"), ("before", try #require(paged.nextCursor))])
            #expect(try rest.decode(TrashPage.self).notes.map(\.rev) == [firstGone.rev])
            #expect(try await api.send("GET", "/v1/trash", query: [("path", "../x.md")]).status == 400)
            #expect(try await api.send("GET", "/v1/trash", query: [("before", "-3")]).errorCode == "invalid_cursor")

            // Restoring is a create of the deleted id: it leaves the trash.
            _ = try await api.create("dir/first.md", "first words, edited", id: first.id)
            let after = try await api.send("GET", "/v1/trash").decode(TrashPage.self)
            #expect(after.notes.map(\.id) == [second.id])
            #expect(kept.deleted == false)
        }
    }

    @Test func purgeErasesEveryRevisionTheSearchEntryAndTheTextFromTheDatabaseFiles() async throws {
        try await LiveServer.with { server, api in
            let secret = "zqxpasted7781secret"
            let other = try await api.create("other.md", "keepmevisible words")
            let note = try await api.create("leak.md", "my password is \(secret)")
            let moved = try await api.update(note, path: "moved/leak.md", content: "my password is \(secret) and more")
            #expect(try await api.send("GET", "/v1/search", query: [("q", secret)]).decode(SearchResults.self).results.count == 1)
            // Rendered HTML is kept once read: it must go with the note too.
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/html").text.contains(secret))
            #expect(try await waitUntil { try Self.keptRenderings(server.databaseLocation) == 1 }, "the rendered HTML is kept")

            #expect(try await api.send("POST", "/v1/notes/\(note.id)/purge").status == 428)
            let stale = try await api.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(note.rev)\""])
            #expect(stale.status == 412)
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/revisions").status == 200, "a refused purge changes nothing")

            let purged = try await api.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(moved.rev)\""])
            #expect(purged.status == 200)
            let result = try purged.decode(PurgeResult.self)
            #expect(result.id == note.id && result.path == "moved/leak.md" && result.purgedRevisions == 3 && result.rev > moved.rev)

            #expect(try await api.send("GET", "/v1/notes/\(note.id)/revisions").status == 404)
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/revisions/\(note.rev)").status == 404)
            #expect(try await api.send("GET", "/v1/notes/\(note.id)").status == 404)
            #expect(try await api.send("GET", "/v1/search", query: [("q", secret)]).decode(SearchResults.self).results.isEmpty)
            #expect(try await api.send("GET", "/v1/trash").decode(TrashPage.self).notes.isEmpty, "nothing of it is left to restore")
            let feed = try await api.send("GET", "/v1/changes", query: [("include", "content")]).decode(ChangesPage.self)
            let tombstone = try #require(feed.changes.first { $0.id == note.id })
            #expect(tombstone.deleted && tombstone.rev == result.rev && tombstone.content == "", "folders sync the deletion")

            let again = try await api.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(moved.rev)\""])
            #expect(again.status == 200, "a retried purge answers as the first")
            #expect(try again.decode(PurgeResult.self).purgedRevisions == 0)

            // Not a byte of it is left in the database (on SQLite: its file and write-ahead log).
            let bytes = try await server.database.storedBytes()
            #expect(bytes.range(of: Data("keepmevisible".utf8)) != nil, "the scan sees what is kept")
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the purged text is still in the database")
            #expect(other.deleted == false)
        }
    }

    /// How many renderings the server keeps, read from a second connection to `database` (a `--db` value).
    static func keptRenderings(_ database: String) throws -> Int64 {
        let connection = try DirectDatabase(database)
        defer { connection.close() }
        return try connection.db.scalarInt("SELECT count(*) FROM rendered_html") ?? -1
    }

    @Test func purgeOfADeletedNoteKeepsItsDeletionAndNeedsAWriteToken() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("old.md", "old text")
            let gone = try await api.delete(note)
            let token = try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "reader", scope: .read))
                .decode(PersonalTokenResource.self)
            let reader = TestAPIClient(baseURL: api.baseURL, token: token.token)
            #expect(try await reader.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(gone.rev)\""]).status == 403)
            #expect(try await reader.send("GET", "/v1/trash").decode(TrashPage.self).notes.map(\.id) == [note.id])

            let purged = try await api.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(gone.rev)\""])
            #expect(try purged.decode(PurgeResult.self) == PurgeResult(id: note.id, path: "old.md", purgedRevisions: 2, rev: gone.rev))
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/revisions").status == 404)
            #expect(try await api.send("POST", "/v1/notes/\(NoteID())/purge", headers: ["If-Match": "\"1\""]).status == 404)
        }
    }

    @Test func anotherUserCanNeitherSeeNorPurgeANote() async throws {
        try await LiveServer.with { server, alice in
            try await server.addUser("bob", password: TestAccount.password)
            let bob = try await TestAPIClient(baseURL: server.baseURL).signedIn("bob", password: TestAccount.password)
            let note = try await alice.create("mine.md", "alice's")
            let gone = try await alice.delete(note)
            #expect(try await bob.send("GET", "/v1/trash").decode(TrashPage.self).notes.isEmpty)
            let purge = try await bob.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(gone.rev)\""])
            #expect(purge.status == 404)
            #expect(try await bob.send("GET", "/v1/notes/\(note.id)/revisions").status == 404)
            #expect(try await alice.send("GET", "/v1/notes/\(note.id)/revisions").decode(RevisionList.self).revisions.count == 2)
            #expect(try await alice.send("GET", "/v1/trash").decode(TrashPage.self).notes.map(\.id) == [note.id])
        }
    }

    @Test func revisionTTLPrunesOldRevisionsButKeepsEachLatestAndADeletedNotesLastContent() async throws {
        try await LiveServer.with(["--revision-ttl", "1s"]) { _, api in
            let note = try await api.create("kept.md", "one")
            let two = try await api.update(note, content: "two")
            let three = try await api.update(two, content: "three")
            let doomed = try await api.create("doomed.md", "last words")
            let edited = try await api.update(doomed, content: "last words, edited")
            let gone = try await api.delete(edited)

            var kept: [Int64] = [], deleted: [Int64] = []
            _ = try await waitUntil(timeout: 15, every: .milliseconds(100)) {
                kept = try await api.send("GET", "/v1/notes/\(note.id)/revisions").decode(RevisionList.self).revisions.map(\.rev)
                deleted = try await api.send("GET", "/v1/notes/\(doomed.id)/revisions").decode(RevisionList.self).revisions.map(\.rev)
                return kept.count <= 1 && deleted.count <= 2
            }
            #expect(kept == [three.rev])
            #expect(deleted == [gone.rev, edited.rev])
            let trash = try await api.send("GET", "/v1/trash").decode(TrashPage.self)
            #expect(trash.notes.map(\.lastRev) == [edited.rev], "a deleted note can still be restored")
        }
    }

    @Test func revisionTTLTakesADurationWithAUnit() throws {
        #expect(try ServerConfiguration.parseDuration("30d", option: "--revision-ttl") == 30 * 86_400)
        #expect(try ServerConfiguration.parseDuration("12h", option: "--revision-ttl") == 12 * 3600)
        #expect(try ServerConfiguration.parseDuration("90m", option: "--revision-ttl") == 5400)
        #expect(try ServerConfiguration.parseDuration("2w", option: "--revision-ttl") == 14 * 86_400)
        #expect(try ServerConfiguration.parseDuration("45", option: "--revision-ttl") == 45)
        for bad in ["0", "-1d", "d", "1y", "", "1.5h"] {
            #expect(throws: UsageError.self, "\(bad)") { try ServerConfiguration.parseDuration(bad, option: "--revision-ttl") }
        }
    }
}

extension ISO8601DateFormatter {
    /// Parses the wire's `2026-11-29T17:30:00.123Z`.
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
