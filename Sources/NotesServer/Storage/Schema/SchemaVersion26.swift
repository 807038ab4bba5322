extension SchemaVersion {
    /// Version 26: where the database's contents are kept, once `notes-server migrate-content`
    /// has moved them (`ContentStoreRecord`, docs/architecture.md §6.3). One row at most: the
    /// store every server writes to and reads from (`database`: beside the database, or an
    /// `s3://BUCKET/PREFIX` with its endpoint and region; never a credential), and while a
    /// migration finishes the store it came from, which reads fall back to. No row: each server's
    /// own `--content-store`, as before.
    ///
    /// On PostgreSQL, version 25's trigger is told of the row too: once it names a bucket, a
    /// `contents` row need not have its bytes in `content_chunks`, whatever the connection says,
    /// because a server that learns of the switch while it runs keeps the connections it has.
    static let v26 = SchemaVersion(version: 26, name: "the content store migrate-content moved the contents to") { dialect in
        """
        CREATE TABLE content_store_location (
            id \(dialect.int64) PRIMARY KEY CHECK (id = 1),
            store TEXT NOT NULL,
            endpoint TEXT,
            region TEXT,
            previous_store TEXT,
            previous_endpoint TEXT,
            previous_region TEXT,
            changed_at \(dialect.int64) NOT NULL
        );

        """ + (dialect == .postgres ? postgresContentsInRecordedStore : "")
    }

    private static let postgresContentsInRecordedStore = contentsRequireBytes("CREATE OR REPLACE FUNCTION", exemption: """
            IF current_setting('notes.content_store', true) = 's3'
               OR EXISTS (SELECT 1 FROM content_store_location WHERE store <> 'database') THEN
                RETURN NULL;
            END IF;

        """) + "\n"
}
