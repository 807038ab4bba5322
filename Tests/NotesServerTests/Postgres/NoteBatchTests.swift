import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A PostgreSQL batch reads ahead the rows its operations name (`NoteBatch`); a row it did not
/// read ahead (a path spelled otherwise than its key, an id the caller did not pass) is read
/// when an operation asks for it, so the answers never depend on the guess.
@Suite("PostgreSQL: a batch's rows read ahead or when asked", .needsPostgresCluster)
struct NoteBatchTests {
    /// Runs one sequence of operations in one batch for a user holding `a.md` and `b.md`,
    /// reading ahead `hinted` ids and paths or nothing; answers each operation's outcome and the
    /// stored rows and counter after the commit.
    static func run(_ store: NoteStore, _ setup: PostgresConnection, username: String, readAhead: Bool) throws -> [String] {
        let user = try #require(try setup.scalarInt("""
            INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, 'x', 0) RETURNING id
            """, [username, username]))
        let a = try store.put(userID: user, id: NoteID(), path: try NotePath("a.md"), content: "a1", precondition: .absent).note
        let b = try store.put(userID: user, id: NoteID(), path: try NotePath("b.md"), content: "b1", precondition: .absent).note
        let n = NoteID(), m = NoteID()
        var outcomes: [String] = []
        func record(_ operation: () throws -> NoteRecord) {
            do {
                let note = try operation()
                outcomes.append("\(note.path)@\(note.rev)\(note.deleted ? "-" : "")")
            } catch let stale as StaleNoteError {
                outcomes.append("stale: \(stale.current?.content ?? "none")@\(stale.current?.rev ?? 0)")
            } catch {
                outcomes.append("refused: \(error)")
            }
        }
        try store.write(for: user) { db in
            let batch = try store.batch(db, userID: user, device: nil, ids: readAhead ? [a.id, b.id, n, m] : [],
                                        paths: readAhead ? ["moved.md", "A.md", "B.md", "b.md"] : [])
            record { try batch.put(id: a.id, path: try NotePath("moved.md"), content: "a1", precondition: .revision(a.rev)).note }
            record { try batch.put(id: n, path: try NotePath("A.md"), content: "n", precondition: .absent).note }
            record { try batch.put(id: m, path: try NotePath("B.md"), content: "m", precondition: .absent).note }
            record { try batch.put(id: b.id, path: try NotePath("b.md"), content: "b2", precondition: .revision(b.rev + 9)).note }
            record { try batch.put(id: n, path: try NotePath("A.md"), content: "n2", precondition: .revision(b.rev)).note }
            record { try batch.delete(id: b.id, ifMatch: b.rev) }
            record { try batch.put(id: m, path: try NotePath("b.md"), content: "m", precondition: .absent).note }
            record { try batch.delete(id: NoteID(), ifMatch: 1) }
            try batch.finish()
        }
        outcomes += try setup.query("SELECT path, rev, deleted, content FROM notes WHERE user_id = ? ORDER BY rev", [user]) {
            "stored \($0.string(0))@\($0.int64(1))\($0.bool(2) ? "-" : "") \($0.string(3))"
        }
        outcomes.append("revisions \(try setup.scalarInt("SELECT count(*) FROM revisions WHERE user_id = ?", [user]) ?? -1)")
        outcomes.append("last_rev \(try setup.scalarInt("SELECT last_rev FROM users WHERE id = ?", [user]) ?? -1)")
        return outcomes
    }

    @Test("a batch that read nothing ahead answers and stores what one that read every row ahead does")
    func readingWhenAskedDecidesAsReadingAhead() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.migrated()
            defer { setup.close() }
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits,
                                  notifier: InProcessChangeNotifier())
            let ahead = try Self.run(store, setup, username: "ahead", readAhead: true)
            let asked = try Self.run(store, setup, username: "asked", readAhead: false)
            #expect(ahead == [
                "moved.md@3", "A.md@4", "refused: \(NoteStoreError.pathTaken("B.md"))", "stale: b1@2", "stale: n@4", "b.md@5-", "b.md@6",
                "refused: \(NoteStoreError.notFound)",
                "stored moved.md@3 a1", "stored A.md@4 n", "stored b.md@5- ", "stored b.md@6 m", "revisions 6", "last_rev 6",
            ])
            #expect(asked == ahead)
        }
    }
}
