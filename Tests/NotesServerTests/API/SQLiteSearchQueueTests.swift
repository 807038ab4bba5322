import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Version 16: on SQLite a note write only queues the note for search; `SQLiteSearchIndexer`
/// makes its FTS5 rows later, in batches, and a search first indexes its user's queued notes.
@Suite("SQLite: search indexed after the write")
struct SQLiteSearchQueueTests {
    /// Creates (or replaces, at `rev`) the note `id` through the API; returns its new revision.
    private static func put(_ app: TestApp, token: String, id: NoteID, path: String, content: String, rev: Int64? = nil) async throws -> Int64 {
        let condition = rev.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
        let response = try await app.send("PUT", "/v1/notes/\(id.value)", json: PutNoteRequest(path: path, content: content), token: token,
                                          headers: condition)
        try #require(response.status == 200 || response.status == 201, "\(response.text)")
        return try response.decode(NoteResource.self).rev
    }

    private static func search(_ app: TestApp, token: String, _ word: String) async throws -> SearchResults {
        try await app.send("GET", "/v1/search", query: ["q": word], token: token).decode(SearchResults.self)
    }

    /// The notes `notes_fts` itself finds for `word`, without a search indexing anything first.
    private static func indexed(_ app: TestApp, _ word: String) throws -> Int64 {
        try app.count("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH '\(word)'")
    }

    @Test(.sqliteOnly) func aWriteQueuesItsNoteAndTheIndexerAloneMakesItFindableWithoutAnySearch() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            _ = try await Self.put(app, token: token, id: id, path: "animals/aardvark.md", content: "an aardvark digs at night")
            // Nothing searched: only the background indexer can empty the queue.
            #expect(try await waitUntil(timeout: 30) { try app.count("SELECT count(*) FROM search_queue") == 0 },
                    "the indexer takes the queued note off the queue once the writes pause")
            #expect(try Self.indexed(app, "aardvark") == 1, "and the note is in the full-text index")
            #expect(try await Self.search(app, token: token, "aardvark").results.map(\.id) == [id])
            try app.application.database.write { db in try db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')") }
        }
    }

    @Test(.sqliteOnly) func aSearchRightAfterAWriteFindsItAndNeverFindsReplacedOrDeletedText() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            let first = try await Self.put(app, token: token, id: id, path: "zoo.md", content: "a zebra grazes")
            #expect(try await Self.search(app, token: token, "zebra").results.map(\.id) == [id], "found at once: the search indexes first")

            let second = try await Self.put(app, token: token, id: id, path: "zoo.md", content: "a yak grazes", rev: first)
            #expect(try await Self.search(app, token: token, "zebra").results.isEmpty, "the replaced text is not found")
            let yak = try await Self.search(app, token: token, "yak").results
            #expect(yak.map(\.id) == [id] && !yak[0].text.contains("zebra"))

            let deleted = await app.send("DELETE", "/v1/notes/\(id.value)", token: token, headers: ["If-Match": "\"\(second)\""])
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await Self.search(app, token: token, "yak").results.isEmpty, "a deleted note is not found")
            #expect(try await Self.search(app, token: token, "grazes").results.isEmpty)
            #expect(try Self.indexed(app, "yak") == 0 && Self.indexed(app, "zebra") == 0, "and its words left the index")
            try app.application.database.write { db in try db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')") }
        }
    }

    @Test(.sqliteOnly) func aQueuedNoteCommittedWithItsWriteIsIndexedAfterARestart() async throws {
        let folder = try TemporaryDirectory("notes-search-queue")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let id = NoteID()
        do {
            // A server that stopped before indexing: the write committed, nothing indexed it.
            let queue = try openDatabase(at: path)
            try queue.write { db in
                try UpgradeFixture.insertUser(db, lastRev: 1)
                try db.run("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                    VALUES (1, ?, 'q.md', 'q.md', 'a quokka smiles', ?, 15, 1, 0, 0, 0)
                    """, id.value, SHA256.hex(of: "a quokka smiles"))
                try SQLiteSearchIndex.queueInserted(db, userID: 1)  // as every insert of a note does since version 19
            }
            #expect(try queue.read { db in try db.scalarInt("SELECT count(*) FROM search_queue") } == 1, "queued in the write's transaction")
            try queue.close()
        }
        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        let token = try await app.signIn().accessToken
        #expect(try await Self.search(app, token: token, "quokka").results.map(\.id) == [id])
    }

    /// A version-15 database: revisions in the WITHOUT ROWID table, the search index kept by the
    /// queue of version 6 (applied at each commit, as that server did), one write's queue rows
    /// left unapplied. Version 16 copies every revision and keeps every note searchable.
    @Test(.sqliteOnly) func theUpgradeFromVersion15KeepsEveryRevisionAndEveryNoteSearchable() async throws {
        let folder = try TemporaryDirectory("notes-revisions-migration")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let older = UpgradeFixture.migrator(through: 15)
        #expect(older.latestVersion == 15)
        let ids = (0..<20).map { _ in NoteID() }
        let pending = NoteID()
        let revisionsSQL = """
            SELECT user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type
            FROM revisions ORDER BY user_id, note_id, rev
            """
        func rows(_ db: some SQLConnection) throws -> [String] {
            try db.query(revisionsSQL, []) { row in
                (0..<12).map { row.isNull($0) ? "NULL" : row.string($0) }.joined(separator: "|")
            }
        }
        let before: [String]
        do {
            let applyVersion6Queue: (Database) throws -> Void = { db in
                try db.execute("""
                    INSERT INTO notes_fts (notes_fts, rowid, path, content) SELECT command, nid, path, content FROM search_queue ORDER BY seq;
                    DELETE FROM search_queue;
                    """)
            }
            let queue = try DatabaseQueue(path: path, migrator: older)
            try queue.write { db in
                try UpgradeFixture.insertUser(db, lastRev: 100)
                var rev: Int64 = 0
                for (number, id) in ids.enumerated() {
                    for version in 0..<3 {
                        rev += 1
                        let content = "note \(number) version \(version) walrus\(number)"
                        try db.run("""
                            INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
                            VALUES (1, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'note', NULL)
                            """, id.value, rev, "n\(number).md", content, SHA256.hex(of: content), content.utf8.count, rev * 1000,
                                   version == 0 ? nil : "laptop")
                    }
                    let content = "note \(number) version 2 walrus\(number)"
                    try db.run("""
                        INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                        VALUES (1, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0)
                        """, id.value, "n\(number).md", "n\(number).md", content, SHA256.hex(of: content), content.utf8.count, rev)
                }
                try applyVersion6Queue(db)  // as a version-15 server did just before each commit
            }
            try queue.close()
            // A write whose queue rows were never applied.
            let raw = try Database(path: path)
            try raw.transaction {
                try raw.run("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                    VALUES (1, ?, 'p.md', 'p.md', 'a pending puffin', ?, 16, 61, 0, 0, 0)
                    """, pending.value, SHA256.hex(of: "a pending puffin"))
            }
            #expect(try raw.scalarInt("SELECT count(*) FROM search_queue") == 1)
            before = try rows(raw)
            try raw.close()
        }
        #expect(before.count == 60)

        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        try app.application.database.read { db in
            #expect(try db.scalarInt("PRAGMA user_version") == Int64(ServerSchema.migrator.latestVersion))
            #expect(try rows(db) == before, "every revision is kept, column for column")
            let table = try db.scalarString("SELECT sql FROM sqlite_master WHERE name = 'revisions'") ?? ""
            #expect(!table.contains("WITHOUT ROWID"))
            #expect(try db.scalarString("PRAGMA integrity_check") == "ok")
        }
        let token = try await app.signIn().accessToken
        for (number, id) in ids.enumerated() {
            #expect(try await Self.search(app, token: token, "walrus\(number)").results.map(\.id) == [id], "indexed before the upgrade")
        }
        #expect(try await Self.search(app, token: token, "puffin").results.map(\.id) == [pending], "queued before the upgrade")
        let history = await app.send("GET", "/v1/notes/\(ids[0].value)/revisions", token: token)
        #expect(history.status == 200 && history.text.contains("laptop"), "\(history.text)")

        // Writes after the upgrade append revisions and are searchable.
        let rev = try await Self.put(app, token: token, id: ids[0], path: "n0.md", content: "an otter now", rev: 3)
        #expect(rev == 101)
        #expect(try await Self.search(app, token: token, "otter").results.map(\.id) == [ids[0]])
        #expect(try await Self.search(app, token: token, "walrus0").results.isEmpty)
        #expect(try app.count("SELECT count(*) FROM revisions") == 61)
        try app.application.database.write { db in try db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')") }
    }

    /// Version 19: the insert trigger is gone and the writing code queues a new note itself. A
    /// note queued by the trigger before the upgrade is still indexed, and notes made after it,
    /// alone or in a batch, are found by a search (which indexes only what the queue holds).
    @Test(.sqliteOnly) func theUpgradeTo19DropsTheInsertTriggerAndNewNotesAreStillQueuedAndFound() async throws {
        let folder = try TemporaryDirectory("notes-queue-by-statement")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let older = UpgradeFixture.migrator(through: 18)
        #expect(older.latestVersion == 18)
        let before = NoteID()
        do {
            let queue = try DatabaseQueue(path: path, migrator: older)
            try queue.write { db in
                try UpgradeFixture.insertUser(db, lastRev: 1)
                try db.run("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                    VALUES (1, ?, 'b.md', 'b.md', 'a badger before', ?, 15, 1, 0, 0, 0)
                    """, before.value, SHA256.hex(of: "a badger before"))
                #expect(try db.scalarInt("SELECT count(*) FROM search_queue") == 1, "the version-18 trigger queued it")
            }
            try queue.close()
        }
        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        #expect(try app.count("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'notes_search_insert'") == 0)
        #expect(try app.count("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'notes_search_%'") == 2,
                "the update and delete triggers stay")
        let token = try await app.signIn().accessToken
        #expect(try await Self.search(app, token: token, "badger").results.map(\.id) == [before], "queued before the upgrade")

        let alone = NoteID()
        _ = try await Self.put(app, token: token, id: alone, path: "alone.md", content: "a lone heron")
        let batched = (0..<3).map { _ in NoteID() }
        let request = BatchRequest(operations: batched.enumerated().map { number, id in
            BatchOperation(op: .put, id: id, path: "b\(number).md", content: "a batched ibis\(number)", ifNoneMatch: "*")
        })
        let response = try await app.send("POST", "/v1/batch", json: request, token: token)
        #expect(try response.decode(BatchResponse.self).results.map(\.status) == [201, 201, 201], "\(response.text)")
        #expect(try await Self.search(app, token: token, "heron").results.map(\.id) == [alone])
        for (number, id) in batched.enumerated() {
            #expect(try await Self.search(app, token: token, "ibis\(number)").results.map(\.id) == [id])
        }
        #expect(try app.count("SELECT count(*) FROM search_queue") == 0)
        try app.application.database.write { db in try db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')") }
    }
}
