import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A new database's note tables get planner statistics as they grow, not a minute later, so a
/// note is found by its unique index instead of by reading every note of its user.
@Suite("PostgreSQL: statistics of young tables", .needsPostgresCluster)
struct YoungTableStatisticsTests {
    @Test("once the notes of a new database outgrow their statistics, they are analyzed and a note by id is read through its unique index")
    func growingTablesAreAnalyzed() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.migrated()
            defer { setup.close() }
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            let userID = try #require(try setup.scalarInt("INSERT INTO users (username, username_key, password_hash, created_at) VALUES ('a', 'a', 'x', 0) RETURNING id"))
            let statistics = YoungTableStatistics(pool: pool, start: false, log: { _ in })
            #expect(try statistics.analyzeGrownTables().isEmpty, "an empty table has nothing to analyze")

            let lookUp = "SELECT \(NoteRecord.columns) FROM notes WHERE user_id = \(userID) AND id = 'x'"
            for batch in 0..<5 {
                _ = try store.write(for: userID) { db in
                    for index in 0..<40 {
                        _ = try store.put(db, userID: userID, id: NoteID(), path: try NotePath("f/\(batch)-\(index).md"),
                                          content: String(repeating: "text \(index) ", count: 150), precondition: .absent)
                    }
                }
            }
            // The writers' change counts reach the cumulative statistics within about a second,
            // but a backend that finds the shared statistics busy defers its report, for up to
            // 60 s (PostgreSQL's PGSTAT_MAX_INTERVAL): under a loaded test run that happened, and
            // 30 s was not enough (CI, 2026-12-02).
            var analyzed: [String] = []
            #expect(try await waitUntil(timeout: 75, every: .milliseconds(200)) {
                analyzed += try statistics.analyzeGrownTables()
                return Set(analyzed) == Set(YoungTableStatistics.tables)
            }, "analyzed so far: \(analyzed)")
            let plan = try setup.query("EXPLAIN \(lookUp)") { $0.string(0) }.joined(separator: "\n")
            #expect(plan.contains("notes_user_id_id_key"), "\(plan)")
            #expect(try statistics.analyzeGrownTables().isEmpty, "a table analyzed since it grew is left alone")
        }
    }
}
