import Foundation
import NotesCore
import Synchronization

/// Shares request-rate allowances among the servers on one PostgreSQL database, so that N servers
/// do not give one client address N times the published rate.
///
/// Checking a shared counter on every request would put a database write on every request's
/// path. Instead each server keeps its local limiters (`RequestRateLimiter`) and, once a
/// `period`, on a thread of its own:
/// 1. writes what each limiter admitted per address since the last round into `rate_usage`
///    (one row per limiter, server and address);
/// 2. reads the rows other servers wrote since its last read and charges each address with
///    them locally (`RequestRateLimiter.charge`);
/// 3. deletes rows older than two minutes (any server may; a limiter's memory is one minute).
///
/// So the allowance holds across servers within one period's worth of requests per server.
/// Rows are read by their sequence number; a row whose number was taken before, but committed
/// after, a read is missed (a few requests uncounted, never a refusal that should not be).
final class SharedRateLedger: Sendable {
    private let pool: PostgresPool
    private let limiters: [String: RequestRateLimiter]
    /// This process among the servers: random per start.
    private let serverID = UUID().uuidString
    /// The exchange, once a period.
    private let exchanges: PeriodicWork
    /// The highest row number read so far.
    private let lastSeen = Mutex<Int64>(0)
    /// The clock that stamps the rows and says which are old.
    private let clock: ServerClock

    /// Starts sharing `limiters` (by a name that is the same on every server) through `pool`.
    init(pool: PostgresPool, limiters: [String: RequestRateLimiter], period: Duration = .seconds(1), clock: ServerClock = ServerClock(),
         log: @escaping @Sendable (String) -> Void) {
        self.pool = pool
        self.clock = clock
        self.limiters = limiters
        exchanges = PeriodicWork(name: "notes-rates", period: period, log: log) { error in
            // The limiters go on locally meanwhile.
            "sharing request rates with the other servers failed (local limits only until it works): \(error)"
        }
        for limiter in limiters.values { limiter.startSharing() }
        exchanges.start { [self] in try exchange() }
    }

    /// Ends the exchange after the round in progress.
    func stop() {
        exchanges.stop()
    }

    /// One round: report, read the others, forget old rows.
    func exchange() throws {
        let now = clock.now()
        let rows = limiters.flatMap { name, limiter in
            limiter.takeAdmitted().map { [name, serverID, $0.key, $0.value, now] as [any SQLBindable] }
        }
        try pool.withConnection { db in
            try Self.insert(rows, into: db)
            // A server just started reads back a minute (a limiter's memory): what others admitted
            // then still counts against the address here.
            let since = lastSeen.withLock { $0 }
            var highest = since
            try db.each("SELECT seq, limiter, address, count FROM rate_usage WHERE seq > ? AND server <> ? AND at > ? ORDER BY seq",
                        [since, serverID, now - 60_000]) { row in
                highest = max(highest, row.int64(0))
                limiters[row.string(1)]?.charge(row.string(2), requests: row.int(3))
                return true
            }
            lastSeen.withLock { $0 = highest }
            try db.run("DELETE FROM rate_usage WHERE at < ?", now - 120_000)
        }
    }

    /// Inserts `rows` of `rate_usage` values, many to a statement: a round trip per address
    /// would not keep up with a flood from many addresses. Batches are powers of two up to 64
    /// rows, so a connection prepares at most seven statements for it.
    private static func insert(_ rows: [[any SQLBindable]], into db: PostgresConnection) throws {
        var rest = rows[...]
        while !rest.isEmpty {
            var size = 64
            while size > rest.count { size /= 2 }
            let batch = rest.prefix(size)
            rest = rest.dropFirst(size)
            let values = Array(repeating: "(?, ?, ?, ?, ?)", count: size).joined(separator: ", ")
            _ = try db.result("INSERT INTO rate_usage (limiter, server, address, count, at) VALUES \(values)", batch.flatMap { $0 })
        }
    }
}
