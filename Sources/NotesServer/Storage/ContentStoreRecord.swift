/// Where the database says its contents are (table `content_store_location`, schema version
/// 26), written by `notes-server migrate-content` and read by every server at start and every
/// few seconds while it runs (`SwitchingBlobStore`): the store to write to and read from, and,
/// while a migration finishes, the store the contents came from, which reads fall back to.
/// No row: each server's own `--content-store`.
struct ContentStoreRecord: Sendable, Equatable {
    var current: ContentStoreAddress
    var previous: ContentStoreAddress?

    /// The recorded store, or nil when no migration has recorded one.
    /// - Throws: a database error, or `S3ConfigurationError` for a row naming no usable bucket.
    static func read(_ db: some SQLConnection) throws -> ContentStoreRecord? {
        guard let row = try db.first("""
            SELECT store, endpoint, region, previous_store, previous_endpoint, previous_region
            FROM content_store_location WHERE id = 1
            """, [], row: { row in
                (store: row.string(0), endpoint: row.optionalString(1), region: row.optionalString(2),
                 previous: row.optionalString(3), previousEndpoint: row.optionalString(4), previousRegion: row.optionalString(5))
            }) else { return nil }
        let current = try ContentStoreAddress(store: row.store, endpoint: row.endpoint, region: row.region)
        let previous = try row.previous.map { try ContentStoreAddress(store: $0, endpoint: row.previousEndpoint, region: row.previousRegion) }
        return ContentStoreRecord(current: current, previous: previous)
    }

    /// Records this as where the contents are, in the caller's transaction.
    func write(_ db: some SQLConnection, at now: Int64) throws {
        let current = self.current.columns
        let previous = self.previous?.columns
        try db.run("""
            INSERT INTO content_store_location (id, store, endpoint, region, previous_store, previous_endpoint, previous_region, changed_at)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET store = excluded.store, endpoint = excluded.endpoint, region = excluded.region,
                previous_store = excluded.previous_store, previous_endpoint = excluded.previous_endpoint,
                previous_region = excluded.previous_region, changed_at = excluded.changed_at
            """, current.store, current.endpoint, current.region, previous?.store, previous?.endpoint, previous?.region, now)
    }
}
