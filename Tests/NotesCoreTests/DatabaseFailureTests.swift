import Foundation
import NotesTestSupport
import Testing
@testable import NotesCore

/// What a connection does when a write fails at COMMIT, when its size limit is reached and when
/// its file is deleted: it reports the failure as such and stays usable for the next write.
@Suite("SQLite wrapper: failed commits, full and vanished databases")
struct DatabaseFailureTests {
    @Test("a failed COMMIT rolls back, restores the nesting depth once, and the next writes work")
    func failedCommitLeavesConnectionUsable() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            // A deferred foreign key is checked at COMMIT, so COMMIT itself fails (as it does on a
            // full disk, where the WAL is written and FTS5 flushes), and SQLite keeps the
            // transaction open.
            try db.execute("""
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY,
                                    parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
            do {
                try db.transaction { try db.run("INSERT INTO child (parent) VALUES (?)", 42) }
                Issue.record("a COMMIT that breaks a foreign key succeeded")
            } catch let error as DatabaseError {
                #expect(error.kind == .constraint)
                #expect(error.sql == "COMMIT")
            }
            #expect(!db.isInTransaction, "the failed transaction was left open")
            #expect(try db.scalarInt("SELECT count(*) FROM child") == 0)
            // The depth went to -1 before: every later transaction ran `SAVEPOINT sp-1` and failed.
            try db.transaction {
                try db.run("INSERT INTO parent (id) VALUES (?)", 1)
                try db.transaction { try db.run("INSERT INTO child (parent) VALUES (?)", 1) }
            }
            #expect(try db.scalarInt("SELECT count(*) FROM child") == 1)
            #expect(!db.isInTransaction)
        }
    }

    @Test("a failed nested transaction rolls back to its savepoint and the outer one goes on")
    func failedNestedTransactionKeepsOuter() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            try db.execute("CREATE TABLE item (name TEXT NOT NULL UNIQUE)")
            try db.transaction {
                try db.run("INSERT INTO item (name) VALUES (?)", "outer")
                #expect(throws: DatabaseError.self) {
                    try db.transaction { try db.run("INSERT INTO item (name) VALUES (?)", "outer") }
                }
                try db.transaction { try db.run("INSERT INTO item (name) VALUES (?)", "inner") }
            }
            #expect(try db.query("SELECT name FROM item ORDER BY name") { $0.string(0) } == ["inner", "outer"])
            #expect(!db.isInTransaction)
        }
    }

    @Test("at its size limit a database refuses growth as .full, keeps reading, and grows again once rows are freed")
    func sizeLimitActsLikeAFullDisk() async throws {
        try await withTemporaryDirectory { dir in
            var options = Database.Options()
            options.maxSizeBytes = 256 * 1024
            let db = try Database(path: dir.appending("db.sqlite").path, options: options)
            #expect(try db.sizeLimitBytes() == 256 * 1024)
            try db.execute("CREATE TABLE ballast (data BLOB NOT NULL)")
            var failure: DatabaseError?
            for _ in 0..<100 {
                do {
                    try db.transaction { try db.run("INSERT INTO ballast (data) VALUES (zeroblob(16384))") }
                } catch let error as DatabaseError {
                    failure = error
                    break
                }
            }
            let full = try #require(failure, "100 inserts of 16 KiB fit under a 256 KiB limit")
            #expect(full.kind == .full)
            #expect(full.isStorageFailure)
            #expect(!db.isInTransaction)
            #expect(try db.sizeBytes() <= 256 * 1024)
            let kept = try #require(try db.scalarInt("SELECT count(*) FROM ballast"))
            #expect(kept > 0)
            try db.run("DELETE FROM ballast WHERE rowid IN (SELECT rowid FROM ballast LIMIT 2)")
            try db.transaction { try db.run("INSERT INTO ballast (data) VALUES (zeroblob(16384))") }
            #expect(try db.scalarInt("SELECT count(*) FROM ballast") == kept - 1)
        }
    }

    @Test("writes to a database file deleted while open are refused as .readOnly; reads go on")
    func deletedFileRefusesWrites() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appending("db.sqlite").path
            var options = Database.Options()
            options.refusesWritesWhenFileMoved = true
            let db = try Database(path: path, options: options)
            try db.execute("CREATE TABLE item (name TEXT NOT NULL)")
            try db.transaction { try db.run("INSERT INTO item (name) VALUES (?)", "before") }
            #expect(!db.fileHasMoved)
            try FileManager.default.removeItem(atPath: path)
            #expect(db.fileHasMoved)
            do {
                try db.transaction { try db.run("INSERT INTO item (name) VALUES (?)", "lost") }
                Issue.record("a write into the deleted file was accepted")
            } catch let error as DatabaseError {
                #expect(error.kind == .readOnly)
                #expect(error.message.contains(path))
            }
            #expect(try db.query("SELECT name FROM item") { $0.string(0) } == ["before"])
        }
    }

    @Test("SQLite result codes map to the kinds callers decide on", arguments: [
        (Int32(13), DatabaseError.Kind.full), (8, .readOnly), (8 | (4 << 8), .readOnly), (10, .unavailable),
        (10 | (3 << 8), .unavailable), (14, .unavailable), (5, .busy), (6, .busy), (19, .constraint), (1, .other), (11, .other),
    ])
    func kinds(code: Int32, kind: DatabaseError.Kind) {
        let error = DatabaseError(code: code, message: "test")
        #expect(error.kind == kind)
        #expect(error.isStorageFailure == [.full, .readOnly, .unavailable].contains(kind))
    }
}
