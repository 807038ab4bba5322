import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Schema version 17: a write stores the note's text once, in the note's row; its revision
/// holds NULL ("the note's current text") until the next write to the note copies the old text
/// into it. Every revision still reads back with its own exact text, on either backend.
@Suite("Revisions: a note's text stored once")
struct RevisionTextOnceTests {
    /// The text `GET /v1/notes/{id}/revisions/{rev}` answers.
    private static func text(_ api: TestAPIClient, _ id: NoteID, _ rev: Int64) async throws -> String? {
        let response = try await api.send("GET", "/v1/notes/\(id)/revisions/\(rev)")
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(RevisionResource.self).content
    }

    private static func text(_ app: TestApp, token: String, _ id: NoteID, _ rev: Int64) async throws -> String? {
        let response = await app.send("GET", "/v1/notes/\(id)/revisions/\(rev)", token: token)
        try #require(response.status == 200, "\(response.text)")
        return try response.decode(RevisionResource.self).content
    }

    private static func put(_ app: TestApp, token: String, id: NoteID, path: String, content: String, rev: Int64? = nil) async throws -> Int64 {
        let condition = rev.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
        let response = try await app.send("PUT", "/v1/notes/\(id.value)", json: PutNoteRequest(path: path, content: content), token: token,
                                          headers: condition)
        try #require(response.status == 200 || response.status == 201, "\(response.text)")
        return try response.decode(NoteResource.self).rev
    }

    /// Only an entry's latest revision may be stored without its text: the count of revisions
    /// without text that are not their entry's latest (0 when the invariant holds).
    private static let textlessButNotLatest = """
        SELECT count(*) FROM revisions r LEFT JOIN notes n ON n.user_id = r.user_id AND n.id = r.note_id
        WHERE r.content IS NULL AND (n.rev IS NULL OR r.rev != n.rev)
        """

    @Test func everyRevisionOfANoteEditedSeveralTimesReadsBackItsOwnExactTextAndTheLatestTheNotesText() async throws {
        try await LiveServer.with { _, api in
            var note = try await api.create("journal/day.md", "# Day\n\nfirst draft\n")
            var written: [(rev: Int64, text: String)] = [(note.rev, "# Day\n\nfirst draft\n")]
            for text in ["# Day\n\nsecond draft\n", "# Day\n\nthird draft, ünïcödé ✓\n", ""] {
                note = try await api.update(note, content: text)
                written.append((note.rev, text))
            }
            note = try await api.update(note, path: "journal/renamed.md", content: "")  // a rename alone
            written.append((note.rev, ""))
            note = try await api.update(note, content: "# Day\n\nfinal\n")
            written.append((note.rev, "# Day\n\nfinal\n"))

            let list = try await api.send("GET", "/v1/notes/\(note.id)/revisions").decode(RevisionList.self).revisions
            #expect(list.map(\.rev) == written.map(\.rev).reversed())
            for (rev, text) in written {
                #expect(try await Self.text(api, note.id, rev) == text, "revision \(rev)")
            }
            #expect(try await api.send("GET", "/v1/notes/\(note.id)").decode(NoteResource.self).content == "# Day\n\nfinal\n")
        }
    }

    @Test func theTextIsStoredOnceAndOnlyEachEntrysLatestRevisionLeavesItToTheNoteWhateverPathWroteIt() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            var expected: [NoteID: [Int64: String]] = [:]
            let a = NoteID(), b = NoteID(), c = NoteID(), d = NoteID()
            var revA = try await Self.put(app, token: token, id: a, path: "a.md", content: "a one")
            expected[a, default: [:]][revA] = "a one"
            revA = try await Self.put(app, token: token, id: a, path: "a.md", content: "a two", rev: revA)
            expected[a, default: [:]][revA] = "a two"
            let revB = try await Self.put(app, token: token, id: b, path: "b.md", content: "b one")
            expected[b, default: [:]][revB] = "b one"
            let revD = try await Self.put(app, token: token, id: d, path: "d.md", content: "d one")
            expected[d, default: [:]][revD] = "d one"
            #expect(try app.count("SELECT count(*) FROM revisions WHERE content IS NULL") == 3)
            #expect(try app.count("SELECT count(*) FROM revisions WHERE content IS NOT NULL") == 1, "only a's first text is kept twice")

            // One batch: an edit of an existing note, a new note written twice, a rename, a deletion.
            let batch = BatchRequest(operations: [
                BatchOperation(op: .put, id: a, path: "a.md", content: "a three", ifMatch: revA),
                BatchOperation(op: .put, id: c, path: "c.md", content: "c one", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: c, path: "c.md", content: "c two", ifMatch: revD + 2),
                BatchOperation(op: .put, id: b, path: "b2.md", content: "b one", ifMatch: revB),
                BatchOperation(op: .delete, id: d, ifMatch: revD),
            ])
            let response = try await app.send("POST", "/v1/batch", json: batch, token: token)
            #expect(response.status == 200, "\(response.text)")
            let results = try response.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [200, 201, 200, 200, 200], "\(response.text)")
            let revs = results.compactMap { $0.note?.rev }
            try #require(revs.count == 5)
            expected[a, default: [:]][revs[0]] = "a three"
            expected[c, default: [:]][revs[1]] = "c one"
            expected[c, default: [:]][revs[2]] = "c two"
            expected[b, default: [:]][revs[3]] = "b one"
            expected[d, default: [:]][revs[4]] = ""

            for (id, revisions) in expected {
                for (rev, text) in revisions {
                    #expect(try await Self.text(app, token: token, id, rev) == text, "\(id) at \(rev)")
                }
            }
            #expect(try app.count(Self.textlessButNotLatest) == 0)
            #expect(try app.count("SELECT count(*) FROM revisions WHERE content IS NULL") == 4, "one per entry: its latest")
        }
    }

    @Test func restoringAnOldRevisionAndADeletedNoteBringsBackTheirTextAndKeepsTheReplacedOne() async throws {
        try await LiveServer.with { _, api in
            let first = try await api.create("plan.md", "plan A")
            let second = try await api.update(first, content: "plan B")
            let third = try await api.update(second, content: "plan C")

            // Restoring an old revision writes its text as a new revision.
            let old = try #require(try await Self.text(api, first.id, first.rev))
            let restored = try await api.update(third, content: old)
            #expect(try await api.send("GET", "/v1/notes/\(first.id)").decode(NoteResource.self).content == "plan A")
            #expect(try await Self.text(api, first.id, third.rev) == "plan C", "the replaced latest revision kept its text")
            #expect(try await Self.text(api, first.id, restored.rev) == "plan A")

            // Deleting keeps the last text; the trash names it and restoring brings it back.
            let tombstone = try await api.delete(restored)
            #expect(try await Self.text(api, first.id, tombstone.rev) == "")
            let trash = try await api.send("GET", "/v1/trash").decode(TrashPage.self)
            let entry = try #require(trash.notes.first { $0.id == first.id })
            #expect(entry.lastRev == restored.rev && entry.size == "plan A".utf8.count)
            let last = try #require(try await Self.text(api, first.id, entry.lastRev))
            #expect(last == "plan A")
            let back = try await api.create("plan.md", last, id: first.id)
            #expect(try await api.send("GET", "/v1/notes/\(first.id)").decode(NoteResource.self).content == "plan A")
            for (rev, text) in [(first.rev, "plan A"), (second.rev, "plan B"), (third.rev, "plan C"), (restored.rev, "plan A"),
                                (tombstone.rev, ""), (back.rev, "plan A")] {
                #expect(try await Self.text(api, first.id, rev) == text, "revision \(rev)")
            }
        }
    }

    @Test func pruningOldRevisionsKeepsTheCurrentTextAndADeletedNotesLastTextReachable() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let kept = NoteID(), doomed = NoteID()
            var rev = try await Self.put(app, token: token, id: kept, path: "kept.md", content: "one")
            rev = try await Self.put(app, token: token, id: kept, path: "kept.md", content: "two", rev: rev)
            rev = try await Self.put(app, token: token, id: kept, path: "kept.md", content: "three", rev: rev)
            let last = try await Self.put(app, token: token, id: doomed, path: "doomed.md", content: "last words")
            let gone = await app.send("DELETE", "/v1/notes/\(doomed)", token: token, headers: ["If-Match": "\"\(last)\""])
            let tombstone = try gone.decode(NoteResource.self).rev

            app.clock.advance(seconds: 7200)
            #expect(try app.application.notes.pruneRevisions(olderThanMilliseconds: 3_600_000) == 2)
            let fresh = try await app.signIn().accessToken
            let list = try await app.send("GET", "/v1/notes/\(kept)/revisions", token: fresh).decode(RevisionList.self).revisions
            #expect(list.map(\.rev) == [rev])
            #expect(try await Self.text(app, token: fresh, kept, rev) == "three", "the latest revision, stored without text, reads the note's")
            #expect(try await Self.text(app, token: fresh, doomed, last) == "last words")
            #expect(try await Self.text(app, token: fresh, doomed, tombstone) == "")
            #expect(try app.count(Self.textlessButNotLatest) == 0)
        }
    }

    /// A version-16 database, each revision holding its text (as every write stored it twice):
    /// version 17 copies every row unchanged, reads give the same texts, and the next write
    /// stores its text once.
    @Test(.sqliteOnly) func aVersion16DatabaseWithEveryTextStoredTwiceUpgradesAndReadsTheSame() async throws {
        let folder = try TemporaryDirectory("notes-text-once-migration")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        let older = UpgradeFixture.migrator(through: 16)
        #expect(older.latestVersion == 16)
        let ids = (0..<10).map { _ in NoteID() }
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
            let queue = try DatabaseQueue(path: path, migrator: older)
            try queue.write { db in
                try Self.fillVersion16(db, ids: ids)
            }
            before = try queue.read { db in try rows(db) }
            try queue.close()
        }
        #expect(before.count == 31)

        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        try app.application.database.read { db in
            #expect(try db.scalarInt("PRAGMA user_version") == Int64(ServerSchema.migrator.latestVersion))
            #expect(try rows(db) == before, "every revision is kept, column for column")
            let notNull = try db.scalarInt("SELECT \"notnull\" FROM pragma_table_info('revisions') WHERE name = 'content'")
            #expect(notNull == 0)
            #expect(try db.scalarString("PRAGMA integrity_check") == "ok")
            #expect(try db.scalarInt("SELECT count(*) FROM pragma_index_list('revisions')") == 2, "both indexes made again")
        }
        let token = try await app.signIn().accessToken
        try await Self.expectVersion16Texts(app, token: token, ids: ids)

        // The first write after the upgrade: the old latest revision keeps its text, the new one none.
        let rev = try await Self.put(app, token: token, id: ids[0], path: "n0.md", content: "an otter now", rev: 3)
        #expect(try await Self.text(app, token: token, ids[0], 3) == "note 0 version 2")
        #expect(try await Self.text(app, token: token, ids[0], rev) == "an otter now")
        #expect(try app.count("SELECT count(*) FROM revisions WHERE content IS NULL") == 1)
        #expect(try app.count(Self.textlessButNotLatest) == 0)
    }

    /// Ten notes of three revisions each and, for note 9, a deletion: every revision with its text.
    static func fillVersion16(_ db: some SQLConnection, ids: [NoteID]) throws {
        try UpgradeFixture.insertUser(db, lastRev: 31)
        var rev: Int64 = 0
        for (number, id) in ids.enumerated() {
            for version in 0..<3 {
                rev += 1
                let content = "note \(number) version \(version)"
                try db.run("""
                    INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
                    VALUES (1, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'note', NULL)
                    """, id.value, rev, "n\(number).md", content, SHA256.hex(of: content), content.utf8.count, rev * 1000,
                           version == 0 ? nil : "laptop")
            }
            let deleted = number == 9
            if deleted {
                rev += 1
                try db.run("""
                    INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
                    VALUES (1, ?, ?, ?, '', ?, 0, 1, ?, NULL, 'note', NULL)
                    """, id.value, rev, "n\(number).md", NoteStore.emptyHash, rev * 1000)
            }
            let content = deleted ? "" : "note \(number) version 2"
            try db.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                """, id.value, "n\(number).md", "n\(number).md", content, SHA256.hex(of: content), content.utf8.count, rev, rev * 1000,
                       deleted ? 1 : 0)
        }
    }

    /// Every revision `fillVersion16` wrote reads back with its text through the API.
    static func expectVersion16Texts(_ app: TestApp, token: String, ids: [NoteID]) async throws {
        var rev: Int64 = 0
        for (number, id) in ids.enumerated() {
            for version in 0..<3 {
                rev += 1
                #expect(try await text(app, token: token, id, rev) == "note \(number) version \(version)")
            }
            if number == 9 {
                rev += 1
                #expect(try await text(app, token: token, id, rev) == "")
            }
        }
    }

    /// PostgreSQL: version 17 drops the column's NOT NULL in place; a version-16 database's rows
    /// stay as they were and the server reads every text the same.
    @Test(.needsPostgresCluster)
    func aVersion16PostgreSQLDatabaseUpgradesInPlaceAndReadsTheSame() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("""
                CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """)
            for migration in PostgresSchema.migrations where migration.version <= 16 {
                if !migration.sql.isEmpty { try db.execute(migration.sql) }
                try db.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
            }
            let ids = (0..<10).map { _ in NoteID() }
            try db.transaction { try Self.fillVersion16(db, ids: ids) }
            let select = "SELECT note_id, rev, content FROM revisions ORDER BY note_id, rev"
            let before = try db.query(select, []) { "\($0.string(0))|\($0.int64(1))|\($0.isNull(2) ? "NULL" : $0.string(2))" }
            #expect(before.count == 31)

            try PostgresSchema.migrate(db)
            #expect(try PostgresSchema.version(db) == PostgresSchema.latestVersion)
            #expect(try db.query(select, []) { "\($0.string(0))|\($0.int64(1))|\($0.isNull(2) ? "NULL" : $0.string(2))" } == before)
            #expect(try db.scalarString("""
                SELECT is_nullable FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'revisions' AND column_name = 'content'
                """) == "YES")
        }
    }
}
