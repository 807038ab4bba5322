import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// PostgreSQL's version 18 (`SchemaVersion18.swift`): note text is compressed with LZ4.
/// What matters is that every note still reads back byte for byte, whatever its size (kept in
/// the row, compressed in the row, or moved out of it), and that notes written before the
/// migration, compressed with pglz, read the same after it.
@Suite("PostgreSQL: note text stored with LZ4", .needsPostgresCluster)
struct PostgresRowStorageTests {
    /// Texts around the sizes that decide how PostgreSQL stores a row: under the 2 KB at which it
    /// compresses, just over it, a bench-sized note, and 100 KB that leave the row even compressed
    /// (varied lines, so they do not compress to nothing); one has a character outside ASCII.
    static let texts: [String] = {
        func lines(_ count: Int, seed: Int) -> String {
            (0..<count).map { "Line \($0 * 7919 % 10007 + seed): *note* text, [a link](x\($0 % 13).md) é → 🐧\n" }.joined()
        }
        return ["# Small\n\nA few words.\n", lines(40, seed: 1), lines(55, seed: 2), lines(2_000, seed: 3)]
    }()

    /// Whether the test cluster can store LZ4 (PostgreSQL 14 and later, built with it).
    static func supportsLZ4(_ db: PostgresConnection) throws -> Bool {
        try db.scalarInt("SELECT current_setting('server_version_num')::integer") ?? 0 >= 140_000
    }

    static func newUser(_ db: PostgresConnection, _ name: String) throws -> Int64 {
        try #require(try db.scalarInt("""
            INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, 'x', 0) RETURNING id
            """, [name, name]))
    }

    /// Each text written as a note through the store, then read back through the store and as
    /// the revision's text (where the revision keeps one: from version 17 the current revision
    /// may leave it to the note); answers the notes' ids in the order of `texts`.
    static func writeAndCheck(_ store: NoteStore, _ db: PostgresConnection, user: Int64, prefix: String) throws -> [NoteID] {
        var ids: [NoteID] = []
        for (number, text) in texts.enumerated() {
            let id = NoteID()
            _ = try store.put(userID: user, id: id, path: try NotePath("\(prefix)\(number).md"), content: text, precondition: .absent)
            let stored = try #require(try store.note(userID: user, id: id))
            #expect(stored.content.map { Array($0.utf8) } == Array(text.utf8), "note \(number) (\(text.utf8.count) bytes) reads back as written")
            let revision = try db.scalarString("SELECT content FROM revisions WHERE user_id = ? AND note_id = ?", [user, id.value])
            if let revision { #expect(Array(revision.utf8) == Array(text.utf8), "revision of note \(number) reads back as written") }
            ids.append(id)
        }
        return ids
    }

    @Test("notes of 20 bytes to 100 KB round-trip byte for byte, their text compressed with LZ4 once it is compressed at all")
    func notesRoundTripCompressedWithLZ4() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.migrated()
            defer { setup.close() }
            #expect(try PostgresSchema.version(setup) >= 18)
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            let user = try Self.newUser(setup, "lz4")
            let ids = try Self.writeAndCheck(store, setup, user: user, prefix: "n")

            let methods = try setup.query("""
                SELECT n.size, pg_column_compression(n.content), pg_column_compression(r.content)
                FROM notes n JOIN revisions r ON r.user_id = n.user_id AND r.note_id = n.id WHERE n.user_id = ? ORDER BY n.size
                """, [user]) { row in
                (note: row.optionalString(1) ?? "plain", revision: row.isNull(2) ? nil : Optional(row.optionalString(2) ?? "plain"))
            }
            #expect(methods.count == ids.count)
            let expected = try Self.supportsLZ4(setup) ? "lz4" : "pglz"
            // The small note stays plain; every larger one is compressed, in both tables, with LZ4.
            #expect(methods.first?.note == "plain", "\(methods)")
            for method in methods.dropFirst() {
                #expect(method.note == expected, "\(methods)")
                #expect(method.revision == nil || method.revision == expected, "\(methods)")
            }
            // The 100 KB note left its row for the table's TOAST table, and still read back whole above.
            let toast = try #require(try setup.scalarString("SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'notes'::regclass"))
            // A name PostgreSQL gave (pg_toast.pg_toast_OID), not outside text.
            #expect(try setup.scalarInt("SELECT count(DISTINCT chunk_id) FROM \(toast)") ?? 0 >= 1)
        }
    }

    @Test("notes written before version 18 (pglz) read the same after it, and new writes beside them use LZ4")
    func migratedDatabaseReadsTheSame() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.connect()
            defer { setup.close() }
            // A database at version 17's schema (the migrations before 18), as an older server left it.
            try setup.transaction(isolation: .readCommitted) {
                try setup.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                for migration in PostgresSchema.migrations where migration.version < 18 {
                    if !migration.sql.isEmpty { try setup.execute(migration.sql) }
                    try setup.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
                }
            }
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            let user = try Self.newUser(setup, "old")
            let old = try Self.writeAndCheck(store, setup, user: user, prefix: "old")
            func dump() throws -> [String] {
                try setup.query("""
                    SELECT n.id, n.content, n.hash, r.content FROM notes n JOIN revisions r ON r.user_id = n.user_id AND r.note_id = n.id
                    WHERE n.user_id = ? ORDER BY n.id
                    """, [user]) { "\($0.string(0)) \($0.string(1)) \($0.string(2)) \($0.optionalString(3) ?? "NULL")" }
            }
            let before = try dump()
            #expect(try setup.scalarString("SELECT pg_column_compression(content) FROM notes WHERE id = ?", [old[3].value]) == "pglz")

            try PostgresSchema.migrate(setup)
            #expect(try PostgresSchema.version(setup) == PostgresSchema.latestVersion)
            #expect(try dump() == before, "every note and revision reads as before")
            for (number, id) in old.enumerated() {
                #expect(try store.note(userID: user, id: id)?.content == Self.texts[number])
            }
            #expect(try setup.scalarString("SELECT pg_column_compression(content) FROM notes WHERE id = ?", [old[3].value]) == "pglz",
                    "stored text is not rewritten")
            let new = try Self.writeAndCheck(store, setup, user: user, prefix: "new")
            let expected = try Self.supportsLZ4(setup) ? "lz4" : "pglz"
            #expect(try setup.scalarString("SELECT pg_column_compression(content) FROM notes WHERE id = ?", [new[3].value]) == expected)
        }
    }
}
