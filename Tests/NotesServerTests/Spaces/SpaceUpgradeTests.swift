import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A database the code before spaces made (schema version 21, written by today's note store)
/// upgrades invisibly: each account's notes become its personal space, `/v1/notes…` answers as
/// before, and a client's changes cursor goes on without a resync (docs/architecture.md §6.5).
@Suite("Spaces: upgrade from a database made before them")
struct SpaceUpgradeTests {
    @Test("a version-21 SQLite database upgrades: personal spaces, the same notes, the same feed", .sqliteOnly)
    func sqliteUpgrade() async throws {
        let folder = try TemporaryDirectory("notes-spaces-upgrade")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let queue = try DatabaseQueue(path: path, migrator: UpgradeFixture.migrator(through: 21))
        let before = try Self.fill(.sqlite(queue))
        try queue.close()
        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        try await Self.expectUpgraded(app, before: before)
    }

    @Test("a version-21 PostgreSQL database upgrades: personal spaces, the same notes, the same feed", .needsPostgresCluster)
    func postgresUpgrade() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            try db.execute("""
                CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """)
            for migration in PostgresSchema.migrations where migration.version <= 21 {
                if !migration.sql.isEmpty { try db.execute(migration.sql) }
                try db.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
            }
            db.close()
            let pool = try PostgresPool(url: database.url, size: 1)
            let before = try Self.fill(.postgres(pool))
            pool.close()
            let app = try TestApp { $0.databasePath = TestPostgresCluster.url(TestPostgresCluster.url ?? "", database: database.name) }
            defer { app.close() }
            try await Self.expectUpgraded(app, before: before)
        }
    }

    /// What the old database held: the cursor an old client had reached, and the notes' paths.
    struct Before {
        let cursor: String
        let paths: [String]
    }

    /// The fixture's account with three notes (one edited, one deleted), written by the note store.
    static func fill(_ database: ServerDatabase) throws -> Before {
        try database.write { db in try UpgradeFixture.insertUser(db, lastRev: 0) }
        let store = NoteStore(database: database, clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
        let ids = [NoteID(), NoteID(), NoteID()]
        for (index, id) in ids.enumerated() {
            _ = try store.put(userID: 1, id: id, path: try NotePath("n\(index).md"), content: "note \(index)", precondition: .absent)
        }
        let edited = try store.put(userID: 1, id: ids[0], path: try NotePath("n0.md"), content: "note 0, edited", precondition: .revision(1))
        let deleted = try store.delete(userID: 1, id: ids[2], ifMatch: 3)
        #expect(edited.note.rev == 4 && deleted.rev == 5)
        return Before(cursor: NoteChangesCursor(rev: 5, fullWalk: false).text, paths: ["n0.md", "n1.md"])
    }

    static func expectUpgraded(_ app: TestApp, before: Before) async throws {
        let token = try await app.signIn().accessToken
        let spaces = try await app.send("GET", "/v1/spaces", token: token).decode(SpaceList.self).spaces
        #expect(spaces.map(\.name) == ["personal"] && spaces.first?.personal == true && spaces.first?.role == .owner)
        #expect(spaces.first?.id == 1, "the personal space is the account's own notes")
        let listed = try await app.send("GET", "/v1/notes", token: token).decode(NoteListPage.self)
        #expect(listed.notes.map(\.path).sorted() == before.paths)

        let unchanged = await app.send("GET", "/v1/changes", query: ["since": before.cursor], token: token)
        #expect(unchanged.status == 200, "an old client's cursor needs no resync")
        #expect(try unchanged.decode(ChangesPage.self).changes.isEmpty)
        let id = NoteID()
        let put = try await app.send("PUT", "/v1/notes/\(id)", json: PutNoteRequest(path: "after.md", content: "after"), token: token,
                                     headers: ["If-None-Match": "*"])
        #expect(put.status == 201)
        let next = try await app.send("GET", "/v1/changes", query: ["since": before.cursor], token: token).decode(ChangesPage.self)
        #expect(next.changes.map(\.path) == ["after.md"], "only the new change comes")
        let revisions = try await app.send("GET", "/v1/notes/\(id)/revisions", token: token).decode(RevisionList.self)
        #expect(revisions.revisions.map(\.author) == [TestAccount.username])
        let viaSpace = try await app.send("GET", "/v1/spaces/1/notes", token: token).decode(NoteListPage.self)
        #expect(viaSpace.notes.map(\.path).sorted() == (before.paths + ["after.md"]).sorted())
    }
}
