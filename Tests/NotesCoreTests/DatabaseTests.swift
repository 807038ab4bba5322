import Foundation
import NotesTestSupport
import Testing
@testable import NotesCore

@Suite("SQLite wrapper")
struct DatabaseTests {
    private let migrator = Migrator([
        .init(version: 1, name: "items", sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, data BLOB)"),
        .init(version: 2, name: "items.size", sql: "ALTER TABLE item ADD COLUMN size INTEGER NOT NULL DEFAULT 0"),
    ])

    @Test("opens in WAL mode and runs migrations once, in order")
    func migratesAndUsesWAL() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appending("db.sqlite").path
            do {
                let db = try Database(path: path)
                #expect(try db.scalarString("PRAGMA journal_mode") == "wal")
                try migrator.migrate(db)
                try migrator.migrate(db)
                #expect(try db.scalarInt("PRAGMA user_version") == 2)
                try db.close()
            }
            let reopened = try Database(path: path)
            try migrator.migrate(reopened)
            #expect(try reopened.scalarInt("SELECT count(*) FROM pragma_table_info('item') WHERE name = 'size'") == 1)
        }
    }

    @Test("refuses a database newer than the program")
    func refusesNewerSchema() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try db.execute("PRAGMA user_version = 9")
            #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        }
    }

    @Test("binds hostile text as a value, never as SQL")
    func bindsValues() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try migrator.migrate(db)
            let hostile = "x'); DROP TABLE item; --"
            try db.run("INSERT INTO item (name, data) VALUES (?, ?)", hostile, [UInt8]([0, 1, 2]))
            try db.run("INSERT INTO item (name, data) VALUES (?, ?)", "empty", [UInt8]())
            let rows = try db.query("SELECT name, data FROM item ORDER BY id") { ($0.string(0), $0.bytes(1), $0.isNull(1)) }
            #expect(rows.map(\.0) == [hostile, "empty"])
            #expect(rows[0].1 == [0, 1, 2])
            #expect(rows[1].1 == [] && rows[1].2 == false)
        }
    }

    @Test("a failed transaction rolls back every write in it")
    func transactionRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try migrator.migrate(db)
            do {
                try db.transaction {
                    try db.run("INSERT INTO item (name) VALUES (?)", "a")
                    try db.run("INSERT INTO item (name) VALUES (?)", "a")  // UNIQUE violation
                }
                Issue.record("the duplicate insert succeeded")
            } catch {
                #expect(error is DatabaseError)
            }
            #expect(try db.scalarInt("SELECT count(*) FROM item") == 0)
            try db.transaction {
                try db.run("INSERT INTO item (name) VALUES (?)", "outer")
                _ = try? db.transaction { () throws -> Void in
                    try db.run("INSERT INTO item (name) VALUES (?)", "inner")
                    throw DatabaseError(code: 1, message: "abort the savepoint")
                }
            }
            #expect(try db.query("SELECT name FROM item") { $0.string(0) } == ["outer"])
        }
    }

    @Test("a constraint violation is reported as one")
    func constraintErrors() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try migrator.migrate(db)
            try db.run("INSERT INTO item (name) VALUES (?)", "a")
            do throws(DatabaseError) {
                try db.run("INSERT INTO item (name) VALUES (?)", "a")
                Issue.record("a duplicate insert succeeded")
            } catch {
                #expect(error.isConstraintViolation)
                #expect(error.sql?.contains("?") == true)
            }
        }
    }

    @Test("online backup copies a consistent, healthy database")
    func backupCopiesData() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try migrator.migrate(db)
            try db.run("INSERT INTO item (name) VALUES (?)", "kept")
            let copyPath = dir.appending("backup.sqlite").path
            try db.backup(to: copyPath)
            let copy = try Database(path: copyPath)
            #expect(try copy.integrityCheck() == "ok")
            #expect(try copy.scalarString("SELECT name FROM item") == "kept")
        }
    }

    @Test("opening a directory as a database fails with the path in the message")
    func openFailureNamesPath() async throws {
        try await withTemporaryDirectory { dir in
            do throws(DatabaseError) {
                _ = try Database(path: dir.path)
                Issue.record("opened a directory")
            } catch {
                #expect(error.description.contains(dir.path))
            }
        }
    }
}
