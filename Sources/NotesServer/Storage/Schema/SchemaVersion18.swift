extension SchemaVersion {
    /// Version 18 (PostgreSQL only): note text compressed with LZ4 instead of PostgreSQL's own pglz.
    ///
    /// Why: a note of about 2 KB makes a `notes` row and a `revisions` row each over the 2 KB at
    /// which PostgreSQL compresses a row's longest values, so every note written compresses its text
    /// twice; with pglz that was about 15 % of PostgreSQL's CPU in a 10,000-note upload (perf, whole
    /// cluster). LZ4 compresses the same text about five times faster (its share of a simulated
    /// upload fell from 5.9 % to 1.2 % of the backend's samples) and reads back faster, for 10 % more
    /// bytes than pglz (1,025 against 937 bytes for the bench's 2,017-byte notes).
    ///
    /// Not chosen: `toast_tuple_target = 8160`, which leaves rows under 8 KB uncompressed. It saves
    /// a little more CPU, but stores those notes at twice their compressed size (2,021 bytes), in
    /// both tables and in the WAL.
    ///
    /// Only values written from now on use LZ4: stored ones keep pglz, and PostgreSQL reads either.
    /// The change is the catalog's alone (no table is rewritten). `SET COMPRESSION` came with
    /// PostgreSQL 14 and LZ4 needs a server built with it; on an older or LZ4-less server the
    /// statements are skipped and notes stay compressed with pglz, which only costs the CPU above.
    /// SQLite's version 18 is empty: SQLite does not compress rows.
    static let v18 = SchemaVersion(version: 18, name: "note text compressed with LZ4 (PostgreSQL only: SQLite does not compress rows)",
                                   sqlite: "", postgres: postgresRowStorage)

    private static let postgresRowStorage = """
        DO $$
        BEGIN
            IF current_setting('server_version_num')::integer >= 140000 THEN
                BEGIN
                    -- As strings: PostgreSQL 13 could not even parse SET COMPRESSION.
                    EXECUTE 'ALTER TABLE notes ALTER COLUMN content SET COMPRESSION lz4';
                    EXECUTE 'ALTER TABLE revisions ALTER COLUMN content SET COMPRESSION lz4';
                EXCEPTION WHEN feature_not_supported THEN
                    NULL;  -- a server built without LZ4: keep pglz
                END;
            END IF;
        END
        $$;

        """
}
