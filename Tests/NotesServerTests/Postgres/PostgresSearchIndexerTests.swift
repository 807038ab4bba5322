import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Search on PostgreSQL indexes notes after their writes (`PostgresSearchIndexer`, version 15)
/// and is still exact at every moment: a note is found as soon as its write is acknowledged,
/// never by words it no longer has, never once deleted, whatever the indexer has done so far.
@Suite("PostgreSQL: search indexed after the write", .needsPostgresCluster)
struct PostgresSearchIndexerTests {
    /// A store on its own pool (a "server"), and a user of it.
    struct Fixture {
        let pool: PostgresPool
        let store: NoteStore
        let userID: Int64

        init(_ database: PostgresTestDatabase, setup: PostgresConnection, username: String = "a") throws {
            pool = try PostgresPool(url: database.url, size: 3)
            store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            userID = try #require(try setup.scalarInt("""
                INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, 'x', 0) RETURNING id
                """, [username, username]))
        }

        func put(_ id: NoteID, _ path: String, _ content: String, _ precondition: WritePrecondition) throws -> NoteRecord {
            try store.put(userID: userID, id: id, path: try NotePath(path), content: content, precondition: precondition).note
        }

        func found(_ query: String) throws -> [NoteID] {
            try store.search(userID: userID, query: query, limit: 50).results.map(\.id)
        }

        /// Runs `body` with a fresh migrated database, a connection that inspects it (`setup`),
        /// and a fixture on it; closes both after.
        static func with(_ body: (PostgresTestDatabase, PostgresConnection, Fixture) async throws -> Void) async throws {
            try await withPostgresDatabase { database in
                let setup = try database.migrated()
                defer { setup.close() }
                let fixture = try Fixture(database, setup: setup)
                defer { fixture.pool.close() }
                try await body(database, setup, fixture)
            }
        }
    }

    /// Live notes whose kept document is not the one their text makes now (must be none), and
    /// documents kept for notes that are not live notes (must be none).
    static func staleDocuments(_ db: PostgresConnection) throws -> (wrong: Int64, orphaned: Int64) {
        let wrong = try db.scalarInt("""
            SELECT count(*) FROM note_search s JOIN notes n ON n.nid = s.nid WHERE s.search <> \(PostgresSchema.searchDocument)
            """) ?? -1
        let orphaned = try db.scalarInt("""
            SELECT count(*) FROM note_search s WHERE NOT EXISTS (
                SELECT 1 FROM notes n WHERE n.nid = s.nid AND n.deleted = 0 AND n.kind = 'note')
            """) ?? -1
        return (wrong, orphaned)
    }

    @Test("a written note is found at once, by its new words only after a change, and not at all once deleted, indexed or still queued")
    func searchIsExactWhateverTheIndexerHasDone() async throws {
        try await Fixture.with { database, setup, fixture in
            let id = NoteID()
            var note = try fixture.put(id, "garden.md", "The tulips bloom in April.", .absent)
            #expect(try fixture.found("tulips") == [id], "found as soon as the write was acknowledged (the search indexes first)")
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0)

            // Another server's indexer holds the queue row: this search cannot index the note
            // and must match it from its text, by its new words only.
            note = try fixture.put(id, "orchard.md", "The apples ripen in October.", .revision(note.rev))
            try setup.execute("BEGIN")
            #expect(try setup.scalarInt("SELECT count(*) FROM (SELECT nid FROM search_queue FOR UPDATE) AS held") == 1)
            #expect(try fixture.found("apples") == [id])
            #expect(try fixture.found("orchard") == [id])
            #expect(try fixture.found("tulips").isEmpty, "the old words no longer find the renamed and edited note")
            #expect(try fixture.found("garden").isEmpty)
            try setup.execute("ROLLBACK")

            #expect(try fixture.found("apples") == [id])
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0, "the search indexed the note once nobody held it")
            let indexed = try Self.staleDocuments(setup)
            #expect(indexed.wrong == 0 && indexed.orphaned == 0)

            _ = try fixture.store.delete(userID: fixture.userID, id: id, ifMatch: note.rev)
            try setup.execute("BEGIN")
            _ = try setup.scalarInt("SELECT count(*) FROM (SELECT nid FROM search_queue FOR UPDATE) AS held")
            #expect(try fixture.found("apples").isEmpty, "a deleted note is not found while its deletion waits in the queue")
            try setup.execute("ROLLBACK")
            #expect(try fixture.found("apples").isEmpty, "nor once the deletion is indexed")
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == 0, "the deleted note's document is gone")
        }
    }

    @Test("the background indexer empties the queue without any search, and keeps one exact document per live note")
    func backgroundIndexerEmptiesTheQueue() async throws {
        try await Fixture.with { database, setup, fixture in
            var written: [(NoteID, NoteRecord)] = []
            for index in 0..<30 {
                let id = NoteID()
                written.append((id, try fixture.put(id, "n/\(index).md", "note number \(index) about rivers", .absent)))
            }
            for (id, note) in written.prefix(5) {
                _ = try fixture.store.delete(userID: fixture.userID, id: id, ifMatch: note.rev)
            }
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 30, "nothing indexed the notes yet")

            let indexer = PostgresSearchIndexer(pool: fixture.pool, period: .milliseconds(100), quiet: .milliseconds(200), log: { _ in })
            defer { indexer.stop() }
            #expect(try await waitUntil(timeout: 30, every: .milliseconds(100)) {
                try setup.scalarInt("SELECT count(*) FROM search_queue") == 0
            })
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == 25)
            let stale = try Self.staleDocuments(setup)
            #expect(stale.wrong == 0 && stale.orphaned == 0)
            #expect(Set(try fixture.found("rivers")) == Set(written.dropFirst(5).map(\.0)))
        }
    }

    @Test("two servers indexing one database at once while notes change leave exactly one current document per live note")
    func twoServersIndexingAtOnce() async throws {
        try await Fixture.with { database, setup, one in
            let twoPool = try PostgresPool(url: database.url, size: 2)
            defer { twoPool.close() }
            let count = PostgresSearchIndexer.batchSize + 100
            let ids = (0..<count).map { _ in NoteID() }
            var revs: [Int64] = []
            _ = try one.store.write(for: one.userID) { db in
                for (index, id) in ids.enumerated() {
                    revs.append(try one.store.put(db, userID: one.userID, id: id, path: try NotePath("m/\(index).md"),
                                                  content: "first text \(index)", precondition: .absent).note.rev)
                }
            }
            // `quiet: .zero`: every round takes the whole queue, as once the writes paused.
            let first = PostgresSearchIndexer(pool: one.pool, quiet: .zero, start: false, log: { _ in })
            let second = PostgresSearchIndexer(pool: twoPool, quiet: .zero, start: false, log: { _ in })
            let initialRevs = revs
            // Both indexers drain the queue at once while the first 200 notes change under them.
            async let indexedByFirst = onOwnThread { try first.indexDue() }
            async let indexedBySecond = onOwnThread { try second.indexDue() }
            async let changed = onOwnThread { () throws -> Int in
                for index in 0..<200 {
                    _ = try one.put(ids[index], "m/\(index).md", "second text \(index)", .revision(initialRevs[index]))
                }
                return 200
            }
            let (_, _, changes) = try await (indexedByFirst, indexedBySecond, changed)
            #expect(changes == 200)
            _ = try first.indexDue()

            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == Int64(count))
            let stale = try Self.staleDocuments(setup)
            #expect(stale.wrong == 0 && stale.orphaned == 0, "each document is that of the note's latest text")
            #expect(try one.found("second").count == 50 && one.found("first").count == 50, "the search's limit")
        }
    }

    @Test("a purged note's document goes with the purge, and a deleted account leaves no search rows behind")
    func purgeAndAccountDeletionLeaveNoSearchRows() async throws {
        try await Fixture.with { database, setup, fixture in
            let secret = NoteID()
            let kept = NoteID()
            let note = try fixture.put(secret, "secret.md", "the combination is sesame", .absent)
            _ = try fixture.put(kept, "kept.md", "an ordinary sesame note", .absent)
            #expect(Set(try fixture.found("sesame")) == [secret, kept], "and both are indexed now")
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == 2)

            _ = try fixture.store.purge(userID: fixture.userID, id: secret, ifMatch: note.rev)
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search s JOIN notes n ON n.nid = s.nid WHERE n.id = ?", [secret.value]) == 0,
                    "the purged note's words are gone at once, not when the indexer comes to it")
            #expect(try fixture.found("combination").isEmpty)

            _ = try UserStore(database: .postgres(fixture.pool), clock: ServerClock()).delete(userID: fixture.userID)
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0)
        }
    }

    @Test("an account is deleted while another server's indexer is working through its queued notes, and leaves no search rows behind")
    func accountDeletedWhileBeingIndexed() async throws {
        try await Fixture.with { database, setup, fixture in
            // An upload's worth of notes, each queued for search by the notes' trigger.
            let count: Int64 = 3000
            try setup.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                SELECT ?, 'n' || g, 'n' || g || '.md', 'n' || g || '.md', 'note ' || g, 'h', 6, g, 0, 0, 0
                FROM generate_series(1, ?) AS g
                """, fixture.userID, count)
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == count)

            // Another server's indexer, committing a note or two at a time until the queue is empty.
            let indexerPool = try PostgresPool(url: database.url, size: 1)
            defer { indexerPool.close() }
            let indexer = Task.detached {
                while try PostgresSearchIndexer.indexQueued(indexerPool, userID: fixture.userID, batchSize: 2) > 0 {}
            }
            #expect(try await waitUntil { try setup.scalarInt("SELECT count(*) FROM search_queue") ?? 0 < count },
                    "the indexer has started on the queue")

            // Every deletion that read the queue before the indexer took a row of it lost that
            // race: ten attempts in a row, while the indexer commits every millisecond or so.
            let notes = try UserStore(database: .postgres(fixture.pool), clock: ServerClock()).delete(userID: fixture.userID)
            #expect(notes == Int(count))
            try await indexer.value
            #expect(try setup.scalarInt("SELECT count(*) FROM users WHERE id = ?", [fixture.userID]) == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM notes") == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == 0, "no document of a deleted note is left")
        }
    }

    @Test("one statement's writes are queued for search once each: notes inserted, renamed, edited or deleted; not attachments, nor notes it left as they were")
    func statementQueuesWhatItChanged() async throws {
        try await Fixture.with { database, setup, fixture in
            func queued() throws -> Set<String> {
                Set(try setup.query("SELECT n.id FROM search_queue q JOIN notes n ON n.nid = q.nid ORDER BY n.id") { $0.string(0) })
            }
            try setup.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind)
                SELECT ?, id, id || '.md', id || '.md', 'text of ' || id, 'h', 1, rev, 0, 0, 0, kind
                FROM (VALUES ('a', 1, 'note'), ('b', 2, 'note'), ('c', 3, 'note'), ('d', 4, 'note'), ('e', 5, 'note'), ('img', 6, 'attachment'))
                    AS v(id, rev, kind)
                """, fixture.userID)
            #expect(try queued() == ["a", "b", "c", "d", "e"], "every inserted note, in the one statement that inserted them")
            try setup.execute("DELETE FROM search_queue")

            try setup.run("""
                UPDATE notes SET
                    path = CASE id WHEN 'a' THEN 'renamed.md' ELSE path END,
                    content = CASE id WHEN 'b' THEN 'new text' ELSE content END,
                    deleted = CASE id WHEN 'c' THEN 1 ELSE deleted END,
                    updated_at = 1
                WHERE user_id = ?
                """, fixture.userID)
            #expect(try queued() == ["a", "b", "c"], "renamed, edited and deleted; not d and e (same path and text), nor the attachment")

            // Already queued: queued once, not twice, and not moved later.
            let before = try setup.scalarInt("SELECT queued_at FROM search_queue q JOIN notes n ON n.nid = q.nid WHERE n.id = 'a'")
            try setup.run("UPDATE notes SET content = 'edited again' WHERE user_id = ? AND id IN ('a', 'd')", fixture.userID)
            #expect(try queued() == ["a", "b", "c", "d"])
            #expect(try setup.scalarInt("SELECT queued_at FROM search_queue q JOIN notes n ON n.nid = q.nid WHERE n.id = 'a'") == before)
        }
    }

    @Test("migrating a database with notes to version 15 queues them, and they are found and then indexed")
    func migrationIndexesExistingNotes() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.connect()
            defer { setup.close() }
            try setup.transaction(isolation: .readCommitted) {
                try setup.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                for migration in PostgresSchema.migrations where migration.version < 15 {
                    if !migration.sql.isEmpty { try setup.execute(migration.sql) }
                    try setup.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
                }
            }
            let userID = try #require(try setup.scalarInt("""
                INSERT INTO users (username, username_key, password_hash, created_at) VALUES ('old', 'old', 'x', 0) RETURNING id
                """))
            try PostgresSearchParityTests.insertCorpus(setup, owner: userID, other: userID)
            try PostgresSchema.migrate(setup)

            #expect(try PostgresSchema.version(setup) == PostgresSchema.latestVersion, "migrated through 15 (16 is empty here)")
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == Int64(PostgresSearchParityTests.corpus.count + 1),
                    "every live note is queued, the deleted one is not")
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            #expect(try store.search(userID: userID, query: "crème", limit: 10).results.map(\.path).sorted() == ["recettes/crème-brûlée.md", "theirs.md"])
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue") == 0)
            #expect(try setup.scalarInt("SELECT count(*) FROM note_search") == Int64(PostgresSearchParityTests.corpus.count + 1))
            let stale = try Self.staleDocuments(setup)
            #expect(stale.wrong == 0 && stale.orphaned == 0)
        }
    }
}
