import Dispatch
import Foundation
import NotesTestSupport
import Testing
@testable import NotesCore

/// A `DatabaseQueue` with readers: reads run on connections of their own, see every committed
/// write, never wait for a write in progress, and cannot write.
@Suite("SQLite wrapper: read connections")
struct DatabaseReadersTests {
    private let migrator = Migrator([
        .init(version: 1, name: "items", sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
    ])

    @Test("a read sees each committed write and cannot write itself")
    func readsSeeCommittedWritesAndAreReadOnly() async throws {
        try await withTemporaryDirectory { dir in
            let queue = try DatabaseQueue(path: dir.appending("db.sqlite").path, migrator: migrator, readers: 2)
            defer { try? queue.close() }
            for count in 1...3 {
                try queue.write { db in try db.run("INSERT INTO item (name) VALUES (?)", "n\(count)") }
                #expect(try queue.read { db in try db.scalarInt("SELECT count(*) FROM item") } == Int64(count))
            }
            #expect(throws: DatabaseError.self) {
                try queue.read { db in try db.run("INSERT INTO item (name) VALUES ('sneaky')") }
            }
            #expect(try queue.withWriter { db in try db.scalarInt("SELECT count(*) FROM item") } == 3)
        }
    }

    @Test("a read completes while a write transaction is held open on another thread, and sees the state before it",
          .timeLimit(.minutes(1)))
    func readsDoNotWaitForAWriteInProgress() async throws {
        try await withTemporaryDirectory { dir in
            let queue = try DatabaseQueue(path: dir.appending("db.sqlite").path, migrator: migrator, readers: 1)
            defer { try? queue.close() }
            try queue.write { db in try db.run("INSERT INTO item (name) VALUES ('before')") }
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let writer = Thread {
                try? queue.write { db in
                    try db.run("INSERT INTO item (name) VALUES ('during')")
                    inside.signal()
                    release.wait()
                }
            }
            writer.start()
            inside.wait()
            // With the writer's lock held, a read on the writing connection would block here.
            let seen = try queue.read { db in try db.scalarInt("SELECT count(*) FROM item") }
            release.signal()
            #expect(seen == 1, "the read sees what was committed before the open transaction")
            #expect(try await waitUntil { try queue.read { db in try db.scalarInt("SELECT count(*) FROM item") } == 2 })
        }
    }

    @Test("after close, reads and writes throw instead of touching a closed connection")
    func closedQueueThrows() async throws {
        try await withTemporaryDirectory { dir in
            let queue = try DatabaseQueue(path: dir.appending("db.sqlite").path, migrator: migrator, readers: 2)
            try queue.close()
            #expect(throws: DatabaseError.self) { try queue.read { db in try db.scalarInt("SELECT 1") } }
            #expect(throws: DatabaseError.self) { try queue.write { db in try db.run("INSERT INTO item (name) VALUES ('x')") } }
        }
    }
}
