import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Version 5 moved rendered HTML off the write path, version 6 queues search-index changes
/// until commit and version 7 records which renderer made a kept rendering. A database written
/// by a server from before them must come through with its search index intact, have its old
/// renderings made again, and stay searchable as notes change afterwards.
@Suite("Search index and rendered HTML: upgrade from version 4")
struct SearchAndHTMLMigrationTests {
    @Test(.sqliteOnly) func notesIndexedBeforeTheUpgradeStaySearchableOldRenderingsAreRemadeAndEditsReindex() async throws {
        let folder = try TemporaryDirectory("notes-search-migration")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let older = UpgradeFixture.migrator(through: 4)
        #expect(older.latestVersion == 4)
        let id = NoteID()
        do {
            let queue = try DatabaseQueue(path: path, migrator: older)
            try queue.write { db in
                try UpgradeFixture.insertUser(db, lastRev: 1)
                // Written as that server did: HTML rendered at the write, indexed by its triggers.
                try db.run("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, html)
                    VALUES (1, ?, 'old.md', 'old.md', 'an aardvark note', ?, 16, 1, 0, 0, 0, '<p>rendered by the old server</p>')
                    """, id.value, SHA256.hex(of: "an aardvark note"))
            }
            try queue.close()
        }

        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        let token = try await app.signIn().accessToken
        func hits(_ word: String) async throws -> [NoteID] {
            try await app.send("GET", "/v1/search", query: ["q": word], token: token).decode(SearchResults.self).results.map(\.id)
        }
        #expect(try await hits("aardvark") == [id], "the index built before the upgrade is kept")
        #expect(await app.send("GET", "/v1/notes/\(id.value)/html", token: token).text == "<p>an aardvark note</p>\n",
                "a rendering by an older renderer is made again at the first read")
        let renderers = {
            try app.application.database.read { db in try db.scalarInt("SELECT renderer FROM rendered_html") }
        }
        #expect(try await waitUntil { try renderers() == Int64(NoteRendering.keptVersion(of: .default)) }, "and kept with the version and flavour that made it")

        let edited = try await app.send("PUT", "/v1/notes/\(id.value)", json: PutNoteRequest(path: "old.md", content: "a badger note"),
                                    token: token, headers: ["If-Match": "\"1\""])
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try await hits("badger") == [id], "an edit after the upgrade is indexed at once")
        #expect(try await hits("aardvark").isEmpty, "and its old words leave the index")
        #expect(await app.send("GET", "/v1/notes/\(id.value)/html", token: token).text == "<p>a badger note</p>\n")

        let deleted = await app.send("DELETE", "/v1/notes/\(id.value)", token: token, headers: ["If-Match": "\"\(try edited.decode(NoteResource.self).rev)\""])
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(try await hits("badger").isEmpty, "a deleted note leaves the index")
        let queued = try app.application.database.read { db in try db.scalarInt("SELECT count(*) FROM search_queue") }
        #expect(queued == 0, "nothing of the user's is left queued once a search ran (it indexes them first)")
    }
}
