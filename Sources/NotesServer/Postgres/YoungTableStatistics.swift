import Foundation

/// Keeps PostgreSQL's planner statistics of the tables that grow with every note write (`notes`,
/// `revisions`) current while they are young, so that prepared statements find their rows by
/// the unique indexes.
///
/// Why: a table PostgreSQL has not analyzed yet looks tiny to the planner, and for a tiny table
/// every index on `notes` that starts with `user_id` costs the same; it then picks one that finds
/// the user's notes by `user_id` alone and filters them (`notes_by_path` for the path clash,
/// `notes_by_rev` for a note by id). A connection keeps that plan for its statement, so in a new
/// database each note of the first upload read all the notes before it: measured on a 2,000-note
/// upload, more than half of PostgreSQL's work. Autovacuum analyzes the table only once its
/// minute comes round (`autovacuum_naptime`), after the upload has ended; a plan made once the
/// table has statistics stays good, since the indexes' selectivity no longer changes much.
///
/// So once a `period`, on a thread of its own, one query asks whether either table has changed
/// by more rows than it had at its last analysis (it more than doubled: only a young table
/// does, so over a table's life this runs about log₂(rows) times), and `ANALYZE` runs on it if
/// so. Statistics are the planner's, not the data's: a failure is logged once and changes
/// nothing else. Any server may do it; two at once only repeat a cheap, sampled analysis.
final class YoungTableStatistics: Sendable {
    private let pool: PostgresPool
    /// The check, once a period.
    private let checks: PeriodicWork

    /// The tables it watches: every note write adds rows to both.
    static let tables = ["notes", "revisions"]
    /// Changes below this are never worth an analysis.
    static let minimumChanges = 64

    /// Starts watching (`start: false`: only `analyzeGrownTables()` by hand, for tests).
    init(pool: PostgresPool, period: Duration = .seconds(1), start: Bool = true, log: @escaping @Sendable (String) -> Void) {
        self.pool = pool
        checks = PeriodicWork(name: "notes-statistics", period: period, log: log) { error in
            "keeping the planner's statistics of young tables failed (autovacuum still does, later): \(error)"
        }
        guard start else { return }
        checks.start { [self] in try analyzeGrownTables() }
    }

    /// Ends the watch after the round in progress.
    func stop() {
        checks.stop()
    }

    /// Analyzes each watched table that changed by more rows than it had when last analyzed.
    /// - Returns: the tables analyzed.
    @discardableResult
    func analyzeGrownTables() throws -> [String] {
        try pool.withConnection { db in
            // The change counts are the cumulative statistics' (flushed by each backend at most
            // once a second); `reltuples` is -1 for a table never analyzed.
            let grown = try db.query("""
                SELECT c.relname FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
                WHERE c.oid IN ('notes'::regclass, 'revisions'::regclass)
                  AND s.n_mod_since_analyze >= ? AND s.n_mod_since_analyze > GREATEST(c.reltuples, 0)
                ORDER BY c.relname
                """, [Self.minimumChanges]) { $0.string(0) }
            // Names from the closed list above, never from outside.
            for table in grown where Self.tables.contains(table) { try db.execute("ANALYZE \(table)") }
            return grown
        }
    }
}
