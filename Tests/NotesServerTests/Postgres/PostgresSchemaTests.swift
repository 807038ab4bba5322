import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// PostgreSQL's migrations: versioned like SQLite's, safe when servers start together, and the
/// per-user revision allocation that keeps the changes feed from skipping under concurrent writers.
@Suite("PostgreSQL schema", .needsPostgresCluster)
struct PostgresSchemaTests {
    @Test("migrations reach the same version as SQLite's, record each step, and run once")
    func migratesOnce() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            #expect(try PostgresSchema.version(db) == 0)
            try PostgresSchema.migrate(db)
            #expect(try PostgresSchema.version(db) == ServerSchema.migrator.latestVersion)
            try PostgresSchema.migrate(db)
            #expect(try db.query("SELECT version FROM schema_migrations ORDER BY version") { $0.int(0) } == PostgresSchema.migrations.map(\.version))
        }
    }

    @Test("servers starting at the same moment migrate once between them, under the advisory lock")
    func concurrentStartsDoNotRace() async throws {
        try await withPostgresDatabase { database in
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let db = try database.connect()
                    defer { db.close() }
                    try PostgresSchema.migrate(db)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let db = try database.connect()
            defer { db.close() }
            #expect(try db.scalarInt("SELECT count(*) FROM schema_migrations") == Int64(PostgresSchema.migrations.count))
        }
    }

    @Test("a database migrated by a newer program is refused, not downgraded")
    func newerDatabaseRefused() async throws {
        try await withPostgresDatabase { database in
            let db = try database.migrated()
            defer { db.close() }
            try db.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", 999, "from the future")
            let error = try #require(throws: PostgresError.self) { try PostgresSchema.migrate(db) }
            #expect(error.message.contains("newer than this program"))
        }
    }

    /// Writers on several connections (as on several servers) allocate revisions with the
    /// stores' statement while a reader keeps reading the feed's end (`users.last_rev`) and the
    /// revisions up to it in one snapshot: every time, every revision up to the end it read is
    /// there. A later commit can never appear behind a cursor the reader has already passed.
    @Test("a reader never sees a revision number whose change has not committed, under concurrent writers")
    func revisionsCommitInOrder() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.migrated()
            let user = try #require(try setup.scalarInt(
                "INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id", ["w", "w", "x", 0]))
            setup.close()
            let writers = 3, writes = 25
            let shared = FeedRace()
            // The reader on a thread of its own, so it runs whatever width concurrentPerform gets.
            let readerFinished = DispatchSemaphore(value: 0)
            let reader = Thread {
                defer { readerFinished.signal() }
                do {
                    let db = try database.connect()
                    defer { db.close() }
                    while !shared.writersDone.load(ordering: .acquiring) {
                        try db.transaction(isolation: .repeatableRead, readOnly: true) {
                            let end = try db.scalarInt("SELECT last_rev FROM users WHERE id = ?", [user]) ?? 0
                            let seen = try db.scalarInt("SELECT count(*) FROM revisions WHERE user_id = ? AND rev <= ?", [user, end]) ?? 0
                            if seen != end { shared.failures.withLock { $0.append("read end \(end) but only \(seen) revisions") } }
                        }
                        shared.reads.add(1, ordering: .relaxed)
                    }
                } catch {
                    shared.failures.withLock { $0.append("reader: \(error)") }
                }
            }
            reader.start()
            DispatchQueue.concurrentPerform(iterations: writers) { worker in
                do {
                    let db = try database.connect()
                    defer { db.close() }
                    for write in 0..<writes {
                        try db.transaction {
                            let rev = try db.scalarInt("UPDATE users SET last_rev = last_rev + 1 WHERE id = ? RETURNING last_rev", [user]) ?? -1
                            try db.run("""
                                INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                                """, user, "w\(worker)-\(write)", rev, "p.md", "", "h", 0, false, 0, nil as String?)
                        }
                    }
                } catch {
                    shared.failures.withLock { $0.append("\(error)") }
                }
            }
            shared.writersDone.store(true, ordering: .releasing)
            readerFinished.wait()
            #expect(shared.failures.withLock { $0 } == [])
            #expect(shared.reads.load(ordering: .relaxed) > 0)
            let db = try database.connect()
            defer { db.close() }
            #expect(try db.query("SELECT rev FROM revisions WHERE user_id = ? ORDER BY rev", [user]) { $0.int(0) } == Array(1...(writers * writes)))
        }
    }
}

/// What the feed-race test's reader thread and writers share.
private final class FeedRace: Sendable {
    let failures = Mutex<[String]>([])
    let writersDone = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)
}
