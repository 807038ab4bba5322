import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// The libpq wrapper against a real server: values survive the round trip, errors carry the
/// server's SQLSTATE and words, transactions roll back and run again after losing a race, and
/// the pool stays bounded and repairs connections the server dropped.
@Suite("PostgreSQL connection", .needsPostgresCluster)
struct PostgresConnectionTests {
    @Test("bound values come back as they went in: integers at both ends, Unicode text, bytes with NUL, NULL")
    func valuesRoundTrip() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("CREATE TABLE v (i BIGINT, t TEXT, b BYTEA, f INTEGER, flag BOOLEAN)")
            let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x5C, 0x78]
            try db.run("INSERT INTO v VALUES (?, ?, ?, ?, ?)", Int64.min, "Zoë 日本 'quote' \"dq\" ? $1 \\", bytes, true, "true")
            try db.run("INSERT INTO v VALUES (?, ?, ?, ?, ?)", Int64.max, "", [UInt8](), false, nil as String?)
            let rows = try db.query("SELECT i, t, b, f, flag FROM v ORDER BY i") { row in
                (row.int64(0), row.string(1), row.bytes(2), row.bool(3), row.optionalString(4), row.isNull(4), row.bool(4))
            }
            #expect(rows.count == 2)
            #expect(rows[0].0 == Int64.min && rows[0].1 == "Zoë 日本 'quote' \"dq\" ? $1 \\" && rows[0].2 == bytes)
            #expect(rows[0].3 && rows[0].4 == "t" && !rows[0].5 && rows[0].6)
            #expect(rows[1].0 == Int64.max && rows[1].1 == "" && rows[1].2 == [] && !rows[1].3 && rows[1].4 == nil && rows[1].5)
            #expect(try db.scalarInt("SELECT count(*) FROM v WHERE t = ?", ["Zoë 日本 'quote' \"dq\" ? $1 \\"]) == 1)
            #expect(try db.scalarString("SELECT t FROM v WHERE i = ?", [Int64.max]) == "")
            #expect(try db.scalarString("SELECT t FROM v WHERE i = ?", [0]) == nil)
        }
    }

    @Test("text with U+0000 (which PostgreSQL's text cannot hold) and U+10FFFF comes back exactly, and still matches in SQL")
    func nulTextRoundTrips() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("CREATE TABLE v (t TEXT)")
            let texts = ["before\u{0}after", "\u{10FFFF}0", "\u{0}\u{10FFFF}\u{0}", "plain", "ends with \u{10FFFF}"]
            for text in texts { try db.run("INSERT INTO v VALUES (?)", text) }
            #expect(try db.query("SELECT t FROM v") { $0.string(0) } == texts)
            for text in texts {
                #expect(try db.scalarInt("SELECT count(*) FROM v WHERE t = ?", [text]) == 1, "\(text.unicodeScalars.map(\.value))")
            }
        }
    }

    @Test("an error carries the SQLSTATE, the server's message and the constraint, and no bound value")
    func errorsCarryServerDetail() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("CREATE TABLE u (name TEXT CONSTRAINT u_name UNIQUE)")
            try db.run("INSERT INTO u VALUES (?)", "secret-value-1")
            let error = try #require(throws: PostgresError.self) { try db.run("INSERT INTO u VALUES (?)", "secret-value-1") }
            #expect(error.sqlState == "23505" && error.isUniqueViolation && error.isConstraintViolation)
            #expect(error.constraint == "u_name")
            #expect(error.message.contains("duplicate key"), "\(error)")
            #expect(error.sql == "INSERT INTO u VALUES (?)")
            let syntax = try #require(throws: PostgresError.self) { try db.run("SELEC 1") }
            #expect(syntax.sqlState == "42601")
        }
    }

    @Test("a failed transaction leaves nothing behind, and a nested one rolls back alone")
    func transactionsRollBack() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("CREATE TABLE n (v INTEGER)")
            struct Oops: Error {}
            do {
                try db.transaction { () throws -> Void in
                    try db.run("INSERT INTO n VALUES (1)")
                    throw Oops()
                }
                Issue.record("the failing transaction returned")
            } catch is Oops {
                // Rolled back, as it must.
            }
            try db.transaction {
                try db.run("INSERT INTO n VALUES (2)")
                do {
                    try db.transaction { () throws -> Void in
                        try db.run("INSERT INTO n VALUES (3)")
                        throw Oops()
                    }
                } catch is Oops {
                    // The savepoint rolled back; the outer transaction carries on.
                }
            }
            #expect(try db.query("SELECT v FROM n ORDER BY v") { $0.int(0) } == [2])
            #expect(!db.isInTransaction)
        }
    }

    @Test("a statement that failed inside a transaction whose error was swallowed fails the COMMIT")
    func swallowedFailureFailsCommit() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            try db.execute("CREATE TABLE n (v INTEGER PRIMARY KEY)")
            let error = try #require(throws: PostgresError.self) {
                try db.transaction {
                    try db.run("INSERT INTO n VALUES (1)")
                    _ = try? db.run("INSERT INTO n VALUES (1)")
                }
            }
            #expect(error.sqlState == "25P02")
            #expect(try db.scalarInt("SELECT count(*) FROM n") == 0)
        }
    }

    @Test("concurrent serializable read-modify-write transactions all land: losers run again")
    func serializationFailuresRetry() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.connect()
            try setup.execute("CREATE TABLE counter (v BIGINT NOT NULL); INSERT INTO counter VALUES (0)")
            setup.close()
            let workers = 4, increments = 15
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                do {
                    let db = try database.connect()
                    defer { db.close() }
                    for _ in 0..<increments {
                        try db.transaction {
                            // Read, then write what was read plus one: a lost update without retries.
                            let value = try db.scalarInt("SELECT v FROM counter") ?? 0
                            try db.run("UPDATE counter SET v = ?", value + 1)
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let check = try database.connect()
            defer { check.close() }
            #expect(try check.scalarInt("SELECT v FROM counter") == Int64(workers * increments))
        }
    }

    @Test("the pool never opens more than its size, and lends each connection to one worker at a time")
    func poolIsBounded() async throws {
        try await withPostgresDatabase { database in
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let inUse = Atomic<Int>(0), most = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                try? pool.withConnection { connection in
                    let now = inUse.add(1, ordering: .relaxed).newValue
                    most.max(now, ordering: .relaxed)
                    _ = try connection.scalarInt("SELECT pg_sleep(0.05)::text IS NULL::int")
                    inUse.subtract(1, ordering: .relaxed)
                }
            }
            #expect(most.load(ordering: .relaxed) <= 2)
            #expect(pool.counts.opened <= 2)
        }
    }

    @Test("a pooled connection whose server process was terminated is re-established on its next use")
    func poolRepairsDroppedConnections() async throws {
        try await withPostgresDatabase { database in
            let pool = try PostgresPool(url: database.url, size: 1, idleCheck: .zero)
            defer { pool.close() }
            let pid = try pool.withConnection { Int64($0.backendPID) }
            let admin = try database.connect()
            defer { admin.close() }
            #expect(try admin.scalarString("SELECT pg_terminate_backend(?::int)::text", [pid]) == "true")
            let answer = try pool.withConnection { connection in
                (try connection.scalarInt("SELECT 41 + 1"), Int64(connection.backendPID))
            }
            #expect(answer.0 == 42)
            #expect(answer.1 != pid)
        }
    }
}
