extension SchemaVersion {
    /// Version 25 (PostgreSQL only): contents whose bytes live in an S3 bucket. Version 13's
    /// trigger refuses a `contents` row whose bytes are not in `content_chunks`; a server whose
    /// content store is a bucket (`--content-store s3://...`) says so on each of its connections
    /// (`SET notes.content_store = 's3'`, through libpq's `options`, see `PostgresURL.withContentStoreSetting`),
    /// and for those the bucket's own rule holds instead: `S3BlobStore` writes a content object,
    /// checked against its hash, before the row that names it commits. Every other connection is
    /// held to version 13's rule as before. SQLite's version 25 is empty.
    static let v25 = SchemaVersion(version: 25, name: "contents whose bytes are in an S3 bucket (PostgreSQL only)",
                                   sqlite: "", postgres: postgresContentsElsewhere)

    private static let postgresContentsElsewhere = contentsRequireBytes("CREATE OR REPLACE FUNCTION", exemption: """
            IF current_setting('notes.content_store', true) = 's3' THEN
                RETURN NULL;
            END IF;

        """) + "\n"
}
