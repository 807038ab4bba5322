import Synchronization

/// A search indexer of one database, run by the server from start to shutdown.
protocol SearchIndexer: Sendable {
    /// Ends the indexing after the batch in progress.
    func stop()
}

extension SQLiteSearchIndexer: SearchIndexer {}
extension PostgresSearchIndexer: SearchIndexer {}

/// The schedule both search indexers keep (`SQLiteSearchIndexer`, `PostgresSearchIndexer`), so
/// the search index trails the writes by the same bounds on either database.
///
/// Once a `period`, on a thread of its own, the queued notes that are due are indexed, a batch
/// per transaction:
/// - once no note was queued for `quiet` (the writes paused), the whole queue;
/// - while writes go on, only what has waited `maxLag` or longer.
/// Which notes are due is decided again before each batch, so a round that began in a pause
/// gives way as soon as the writes come back. A note is therefore indexed at most about
/// `quiet + period` after the last write of a burst, and about `maxLag + period` after its own
/// write under constant writes, each plus the time to index the notes queued before it.
final class SearchIndexRounds: Sendable {
    /// One database's queue of notes waiting for the index.
    struct Queue: Sendable {
        /// Notes a batch takes at most: a batch that takes fewer ends the round.
        var batchSize: Int
        /// The newest queue time (nil: nothing is queued) and the time now, in milliseconds of
        /// the clock the queue times were taken with.
        var clock: @Sendable () throws -> (newest: Int64?, now: Int64)
        /// Indexes one batch of the notes queued at or before `dueBefore`, in a transaction of
        /// its own; answers how many it took from the queue.
        var indexBatch: @Sendable (_ dueBefore: Int64) throws -> Int
    }

    private let queue: Queue
    private let quiet: Duration
    private let maxLag: Duration
    private let rounds: PeriodicWork
    private let stopped = Atomic<Bool>(false)

    /// Starts the rounds (`start: false`: only `indexDue()` by hand, for tests); `failure` is the
    /// line logged when a run of failed rounds begins.
    init(queue: Queue, period: Duration, quiet: Duration, maxLag: Duration, start: Bool,
         log: @escaping @Sendable (String) -> Void, failure: @escaping @Sendable (any Error) -> String) {
        self.queue = queue
        self.quiet = quiet
        self.maxLag = maxLag
        rounds = PeriodicWork(name: "notes-search-index", period: period, log: log, failure: failure)
        guard start else { return }
        rounds.start { [self] in try indexDue() }
    }

    /// Ends the indexing after the batch in progress.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        rounds.stop()
    }

    /// One round: indexes the queued notes that are due, a batch per transaction, until none is
    /// left or the rounds are stopped.
    /// - Returns: how many notes it took from the queue.
    @discardableResult
    func indexDue() throws -> Int {
        var taken = 0
        while !stopped.load(ordering: .relaxed) {
            let clock = try queue.clock()
            guard let newest = clock.newest else { break }
            let writesPaused = clock.now - newest >= Self.milliseconds(quiet)
            let batch = try queue.indexBatch(writesPaused ? Int64.max : clock.now - Self.milliseconds(maxLag))
            taken += batch
            if batch < queue.batchSize { break }
        }
        return taken
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
