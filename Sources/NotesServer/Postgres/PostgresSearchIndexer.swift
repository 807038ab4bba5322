import Foundation

/// Makes the search documents of the notes queued in `search_queue` (PostgreSQL, version 15),
/// off the path of the writes that queued them.
///
/// Search never waits for it to be correct: `PostgresSchema.matchingNotes` reads a queued note's
/// text itself. What the indexer saves is that work, done once instead of at every search, in
/// batches, after the writes: a write does not pay for it, and an upload's requests are answered
/// before most of it runs.
///
/// When it runs is `SearchIndexRounds`' schedule (at most about 2 s after a burst of writes, about
/// 31 s under constant writes), plus the time to index the notes queued before (about 0.6 ms of
/// PostgreSQL's CPU per note).
/// A search indexes its user's queued notes first (`indexQueued(_:userID:)`), so a user's
/// searches during or after a burst of writes do not read the same notes' text again and again.
///
/// Several servers may index one database at once: each takes the rows it indexes with
/// `FOR UPDATE SKIP LOCKED`, so none waits for another and no note is indexed twice at once.
final class PostgresSearchIndexer: Sendable {
    private let rounds: SearchIndexRounds

    /// Notes per transaction: large enough that a round pays few commits, small enough that
    /// a batch holds its rows' locks for a fraction of a second.
    static let batchSize = 500
    /// The most batches a search indexes before it reads (100,000 notes).
    static let maxBatchesPerSearch = 200

    /// Starts indexing (`start: false`: only `indexDue()` by hand, for tests).
    init(pool: PostgresPool, period: Duration = .seconds(1), quiet: Duration = .seconds(1), maxLag: Duration = .seconds(30),
         start: Bool = true, log: @escaping @Sendable (String) -> Void) {
        let queue = SearchIndexRounds.Queue(
            batchSize: Self.batchSize,
            // The newest queue time and the database's clock: the times compared are the database's.
            clock: {
                try pool.withConnection { db in
                    try db.first("""
                        SELECT max(queued_at), (extract(epoch FROM now()) * 1000)::bigint FROM search_queue
                        """) { row in (newest: row.isNull(0) ? nil : Optional(row.int64(0)), now: row.int64(1)) }
                } ?? (nil, 0)
            },
            indexBatch: { dueBefore in
                try pool.withConnection { db in
                    try db.transaction(isolation: .readCommitted) {
                        try Self.indexQueued(db, where: "queued_at <= ?", dueBefore, limit: Self.batchSize)
                    }
                }
            })
        rounds = SearchIndexRounds(queue: queue, period: period, quiet: quiet, maxLag: maxLag, start: start, log: log) { error in
            "indexing queued notes for search failed (searches still find them, reading their text): \(error)"
        }
    }

    /// Ends the indexing after the batch in progress.
    func stop() { rounds.stop() }

    /// One round (`SearchIndexRounds.indexDue()`): how many notes it took from the queue.
    @discardableResult
    func indexDue() throws -> Int { try rounds.indexDue() }

    /// Indexes all of `userID`'s queued notes that no other indexer holds, a batch per
    /// transaction (`NoteStore.search` runs this before it reads, so that what it then reads
    /// from the notes' text is at most what other indexers hold or what was written meanwhile).
    /// - Returns: how many notes it took from the queue.
    @discardableResult
    static func indexQueued(_ pool: PostgresPool, userID: Int64, batchSize: Int = batchSize) throws -> Int {
        try pool.withConnection { db in
            var taken = 0
            // Bounded, should one user's writes ever outpace it: what is left is read from text.
            for _ in 0..<maxBatchesPerSearch {
                let batch = try db.transaction(isolation: .readCommitted) {
                    try indexQueued(db, where: "user_id = ?", userID, limit: batchSize)
                }
                taken += batch
                if batch < batchSize { break }
            }
            return taken
        }
    }

    /// Inside the caller's `READ COMMITTED` transaction: takes up to `limit` queued notes
    /// matching `condition` (bound to `value`) off the queue, then, in a second statement,
    /// writes the document of each that is a live note and drops that of each that is not.
    ///
    /// The order is what keeps the index exact. The queue rows are locked and deleted first; a
    /// write committed before that lock is seen by the second statement (a new snapshot under
    /// `READ COMMITTED`), and a write after it waits for this transaction and then queues its note
    /// again (`notes_search_enqueue_updated`). One statement for both would read the notes with the
    /// snapshot taken before a wait for a lock, and could index text already replaced.
    private static func indexQueued(_ db: PostgresConnection, where condition: String, _ value: Int64, limit: Int) throws -> Int {
        // `condition` is one of this file's two constants, never outside text.
        let taken = try db.query("""
            DELETE FROM search_queue WHERE nid IN (
                SELECT nid FROM search_queue WHERE \(condition) ORDER BY nid LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING nid
            """, [value, limit]) { $0.int64(0) }
        guard !taken.isEmpty else { return 0 }
        let nids = "{" + taken.map(String.init).joined(separator: ",") + "}"
        try db.run("""
            WITH gone AS (
                DELETE FROM note_search s WHERE s.nid = ANY(?1::bigint[])
                    AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.nid = s.nid AND n.deleted = 0 AND n.kind = 'note')
            )
            INSERT INTO note_search (nid, user_id, search)
            SELECT n.nid, n.user_id, \(PostgresSchema.searchDocument) FROM notes n
            WHERE n.nid = ANY(?1::bigint[]) AND n.deleted = 0 AND n.kind = 'note'
            ON CONFLICT (nid) DO UPDATE SET search = EXCLUDED.search
            """, nids)
        return taken.count
    }
}
