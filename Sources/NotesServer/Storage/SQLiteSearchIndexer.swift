import Foundation
import NotesCore

/// Turns SQLite's queue of changed notes (`search_queue`, version 16) into `notes_fts` rows.
///
/// Every function runs inside the caller's write transaction: the queue rows it takes and the
/// index rows it writes commit together, so a crash leaves a note either indexed or still queued.
enum SQLiteSearchIndex {
    /// Notes per transaction of the indexer: a batch holds the writer for a few tens of
    /// milliseconds (about 70 µs of CPU a note of 2 KB), so a write waits at most that long.
    static let batchSize = 500
    /// The most batches a search indexes before it reads (100,000 notes): a user whose writes
    /// outpace that finds the rest once the indexer has them.
    static let maxBatchesPerSearch = 200

    /// Queues for search the note the connection's last `INSERT INTO notes` made (a live row):
    /// what the insert trigger did until version 19 (`SchemaVersion19.swift`), in the
    /// same transaction, at the same time on SQLite's clock. Every SQLite insert of a note row
    /// must call it right after the insert. A row of a reused `nid` still queued keeps the text
    /// the index holds for it (`DO NOTHING`), as with the trigger.
    static func queueInserted(_ db: some SQLConnection, userID: Int64) throws {
        try db.run("""
            INSERT INTO search_queue (nid, user_id, queued_at)
            VALUES (last_insert_rowid(), ?, CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER))
            ON CONFLICT (nid) DO NOTHING
            """, userID)
    }

    /// Indexes the queued notes matching `condition` (SQL over `search_queue`'s columns, bound
    /// to `values`), at most `limit` of them (the lowest `nid`s; nil: all): drops from the index
    /// what it holds for each (the queue row's `old_path` and `old_content`), adds each that is
    /// a live row now, and removes their queue rows.
    ///
    /// The queue rows are deleted under `secure_delete`: a row's old text must not stay behind
    /// in free pages, where a purge (which scrubs what it deletes itself) would not find it.
    /// - Returns: how many queued notes it indexed.
    /// `condition` is one of this program's constants, never outside text.
    @discardableResult
    static func indexQueued(_ db: some SQLConnection, where condition: String, _ values: [any SQLBindable], limit: Int?) throws -> Int {
        var taken = "(\(condition))"
        var bound = values
        if let limit {
            // The batch: the first `limit` matching notes by nid, named by the last one's nid.
            guard let last = try db.scalarInt("SELECT max(nid) FROM (SELECT nid FROM search_queue WHERE \(taken) ORDER BY nid LIMIT ?)",
                                              values + [limit]) else { return 0 }
            taken += " AND nid <= ?"
            bound.append(last)
        } else if try db.scalarInt("SELECT EXISTS (SELECT 1 FROM search_queue WHERE \(taken))", values) != 1 {
            return 0
        }
        // Every deletion before every insertion: a note re-indexed is taken out, then put back.
        _ = try db.query("""
            INSERT INTO notes_fts (notes_fts, rowid, path, content)
            SELECT 'delete', nid, old_path, old_content FROM search_queue WHERE \(taken) AND old_path IS NOT NULL
            """, bound) { _ in () }
        _ = try db.query("""
            INSERT INTO notes_fts (rowid, path, content)
            SELECT n.nid, n.path, n.content FROM notes n
            WHERE n.nid IN (SELECT nid FROM search_queue WHERE \(taken)) AND n.deleted = 0
            """, bound) { _ in () }
        let secureDelete = try db.scalarInt("PRAGMA secure_delete") ?? 0
        if secureDelete != 1 { try db.execute("PRAGMA secure_delete = ON") }
        defer { if secureDelete != 1 { try? db.execute("PRAGMA secure_delete = \(secureDelete)") } }
        return try db.query("DELETE FROM search_queue WHERE \(taken) RETURNING nid", bound) { _ in () }.count
    }

    /// Indexes `userID`'s queued notes, a batch per write transaction, at most
    /// `maxBatchesPerSearch` batches (`NoteStore.search` and the backlinks run this before they
    /// read, so what they read is the index of every write acknowledged before). A read first
    /// asks whether any is queued, so a search with nothing queued takes no write.
    /// - Returns: how many queued notes it indexed.
    @discardableResult
    static func indexQueued(_ queue: DatabaseQueue, userID: Int64) throws -> Int {
        let queued = try queue.read { db in try db.scalarInt("SELECT EXISTS (SELECT 1 FROM search_queue WHERE user_id = ?)", [userID]) }
        guard queued == 1 else { return 0 }
        var taken = 0
        for _ in 0..<maxBatchesPerSearch {
            let batch = try queue.write { db in try indexQueued(db, where: "user_id = ?", [userID], limit: batchSize) }
            taken += batch
            if batch < batchSize { break }
        }
        return taken
    }
}

/// Indexes SQLite's queued notes for search off the path of the writes that queued them, as
/// `PostgresSearchIndexer` does on PostgreSQL: the same schedule (`SearchIndexRounds`), a batch
/// (`SQLiteSearchIndex.batchSize`) per write transaction, so a write waits for at most one batch
/// (about 70 µs a note of 2 KB). Searches do not wait for it: they index their user's queued
/// notes first.
final class SQLiteSearchIndexer: Sendable {
    private let rounds: SearchIndexRounds

    /// Starts indexing (`start: false`: only `indexDue()` by hand, for tests). `clock` says how
    /// long notes have waited in the queue, whose rows SQLite stamps with the wall clock.
    init(queue: DatabaseQueue, period: Duration = .seconds(1), quiet: Duration = .seconds(1), maxLag: Duration = .seconds(30),
         start: Bool = true, clock: ServerClock = ServerClock(), log: @escaping @Sendable (String) -> Void) {
        let indexed = SearchIndexRounds.Queue(
            batchSize: SQLiteSearchIndex.batchSize,
            clock: {
                let newest = try queue.read { db in try db.scalarInt("SELECT max(queued_at) FROM search_queue") }
                return (newest, clock.now())
            },
            indexBatch: { dueBefore in
                try queue.write { db in
                    try SQLiteSearchIndex.indexQueued(db, where: "queued_at <= ?", [dueBefore], limit: SQLiteSearchIndex.batchSize)
                }
            })
        rounds = SearchIndexRounds(queue: indexed, period: period, quiet: quiet, maxLag: maxLag, start: start, log: log) { error in
            "indexing queued notes for search failed (searches index their user's notes themselves): \(error)"
        }
    }

    /// Ends the indexing after the batch in progress.
    func stop() { rounds.stop() }

    /// One round (`SearchIndexRounds.indexDue()`): how many notes it took from the queue.
    @discardableResult
    func indexDue() throws -> Int { try rounds.indexDue() }
}
