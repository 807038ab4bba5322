import Foundation
import Synchronization

/// The gauges only the database can tell (sessions, stored content) and SQLite's WAL size.
///
/// Counting sessions and summing content sizes reads whole tables, so the counts are taken at
/// most once per `maxAge` however often Prometheus scrapes; the WAL's size is one `stat` and is
/// read at every scrape. A database that cannot be read shows as `notes_database_up 0`, its
/// gauges left out, and the scrape still answers.
final class StorageGauges: Sendable {
    /// How long counts read from the database are shown before they are read again.
    static let maxAge: Duration = .seconds(30)

    struct Counts: Sendable {
        var sessions: Int64
        var contentBytes: Int64
        var contentObjects: Int64
    }

    private let database: ServerDatabase
    /// The SQLite file's path, whose `-wal` file is measured; nil on PostgreSQL.
    private let sqlitePath: String?
    private let cached = Mutex<(taken: ContinuousClock.Instant, counts: Counts)?>(nil)

    init(database: ServerDatabase, databasePath: String) {
        self.database = database
        if case .sqlite(let path)? = try? DatabaseLocation(databasePath) {
            sqlitePath = path
        } else {
            sqlitePath = nil
        }
    }

    func write(into text: inout PrometheusText) {
        let counts = current()
        text.single("notes_database_up", "gauge", help: "1 when this scrape could read the database, else 0.", counts == nil ? 0 : 1)
        if let counts {
            text.single("notes_sessions", "gauge", help: "Sessions not revoked (devices and browsers), until purged after expiry.",
                        Int(counts.sessions))
            text.single("notes_content_store_bytes", "gauge", help: "Bytes of attachment content stored, every user's together.",
                        Int(counts.contentBytes))
            text.single("notes_content_store_objects", "gauge", help: "Attachment contents stored (one per user and SHA-256).",
                        Int(counts.contentObjects))
        }
        if let sqlitePath {
            let size = (try? FileManager.default.attributesOfItem(atPath: sqlitePath + "-wal")[.size] as? Int) ?? 0
            text.single("notes_sqlite_wal_bytes", "gauge", help: "Size of the SQLite write-ahead log (it shrinks at each checkpoint).", size)
        }
    }

    /// The counts, read again when older than `maxAge`; nil when the database cannot be read.
    private func current() -> Counts? {
        let now = ContinuousClock.now
        if let (taken, counts) = cached.withLock({ $0 }), now - taken < Self.maxAge { return counts }
        do {
            let counts = try database.read { db in
                Counts(sessions: try db.scalarInt("SELECT COUNT(*) FROM sessions WHERE revoked_at IS NULL") ?? 0,
                       contentBytes: try db.scalarInt("SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM contents") ?? 0,
                       contentObjects: try db.scalarInt("SELECT COUNT(*) FROM contents") ?? 0)
            }
            cached.withLock { $0 = (now, counts) }
            return counts
        } catch {
            return nil
        }
    }
}
