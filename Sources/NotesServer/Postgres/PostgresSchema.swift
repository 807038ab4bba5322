import NotesCore

/// The server's schema on PostgreSQL, as versioned migrations recorded in `schema_migrations`.
///
/// Versions 1–12 mirror `ServerSchema`'s (same tables, columns and meaning; a version number
/// means the same schema on both backends, so `migrate-data` can match them), written in
/// PostgreSQL's types: `BIGINT` identities for SQLite's rowids, `BYTEA` for blobs, integer
/// `0`/`1` flags kept as `INTEGER` so the stores' statements (`deleted = 0`) run unchanged.
/// Times stay integer milliseconds since the Unix epoch.
///
/// Where SQLite needs machinery, PostgreSQL has its own: search was a generated `tsvector` column
/// (`PostgresSchema+Search.swift`), so migration 6 (SQLite's search queue) is empty here, and
/// from version 15 a table of documents filled after the write from a queue of its own
/// (`PostgresSearchIndexer`); the login throttle, in memory on SQLite, is a table from version 1
/// so every server shares it.
///
/// Several servers may start at once against one database: `migrate` takes a transaction-scoped
/// advisory lock first, so one of them migrates and the others, once it committed, find nothing
/// left to do.
enum PostgresSchema {
    static let migrations: [Migrator.Migration] = [
        .init(version: 1, name: "accounts, sessions, tokens, notes, revisions, search, login throttle",
              sql: searchV1 + accountsV1 + notesV1 + loginThrottleV1),
        .init(version: 2, name: "a rotation's answer kept sealed for replays within the grace", sql: sessionsSuccessorV2),
        .init(version: 3, name: "the device that made each revision", sql: revisionsDeviceV3),
        .init(version: 4, name: "usernames looked up case-folded, Unicode included", sql: usernameKeyV4),
        .init(version: 5, name: "HTML rendered at first read and kept per revision, off the write path", sql: renderedHTMLV5),
        .init(version: 6, name: "search index changes queued (SQLite only: PostgreSQL indexes in the writing statement)", sql: ""),
        .init(version: 7, name: "kept renderings carry the renderer's version", sql: renderingVersionV7),
        .init(version: 8, name: "attachments: entry kinds, media types, contents, holds and uploads", sql: attachmentsV8),
        .init(version: 9, name: "published notes, readable by an unguessable link", sql: publicationsV9),
        .init(version: 10, name: "browser sessions carried in a cookie", sql: webSessionsV10),
        .init(version: 11, name: "identities at OpenID Connect providers, sign-in state, one-time login codes", sql: signInV11),
        .init(version: 12, name: "device authorization codes (RFC 8628) for sign-in without a browser", sql: deviceCodesV12),
        .init(version: 13, name: "attachment content in the database (PostgreSQL only: SQLite keeps a directory)", sql: contentStorageV13),
        .init(version: 14, name: "request rates shared among the servers", sql: rateUsageV14),
        .init(version: 15, name: "search documents indexed after the write, from a queue of changed notes (PostgreSQL only: SQLite queues since version 6)",
              sql: searchTableV15),
        // SQLite only: PostgreSQL indexes after the write since version 15, and its revisions table has no WITHOUT ROWID.
        .init(version: 16, name: "search index made after the write from a queue of changed notes; revisions in a rowid table (SQLite only)",
              sql: ""),
        .init(version: 17, name: "a revision's text stored once: NULL in the latest revision means the note's current text",
              sql: revisionsTextOnceV17),
        .init(version: 18, name: "note text compressed with LZ4 (PostgreSQL only: SQLite does not compress rows)", sql: rowStorageV18),
        // SQLite only: PostgreSQL's queue is filled in the writing statement (version 15).
        .init(version: 19, name: "a new note queued for search by the writing code, not a trigger (SQLite only)", sql: ""),
        .init(version: 20, name: "notes queued for search once per statement, not per row (PostgreSQL only)", sql: queueByStatementV20),
        .init(version: 21, name: "accounts unlocked by an administrator, read by the sign-in throttles", sql: loginUnlocksV21),
    ]

    /// The newest version these migrations reach.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The advisory lock migrations run under: any fixed number other programs sharing the
    /// database are unlikely to pick (the bytes of "notesmig").
    static let migrationLockKey: Int64 = 0x6E6F_7465_736D_6967

    /// Applies every migration newer than the database's version, all in one transaction.
    ///
    /// The transaction is `READ COMMITTED` on purpose: the version is read *after* the advisory
    /// lock is granted, and at that isolation each statement sees what committed before it, so
    /// a server that waited for another's migrations sees them done. (Under `REPEATABLE READ`
    /// the snapshot would date from before the wait, and it would try to migrate again.)
    /// - Throws: `PostgresError` when a migration fails (nothing of it stays: DDL is
    ///   transactional in PostgreSQL), or when the database is newer than this program.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.transaction(isolation: .readCommitted) {
            try connection.run("SELECT pg_advisory_xact_lock(?)", migrationLockKey)
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let current = Int(try connection.scalarInt("SELECT coalesce(max(version), 0) FROM schema_migrations") ?? 0)
            guard current <= latestVersion else {
                throw PostgresError(message: "the database is at schema version \(current), newer than this program knows (\(latestVersion)); upgrade the program")
            }
            for migration in migrations where migration.version > current {
                if !migration.sql.isEmpty { try connection.execute(migration.sql) }
                try connection.run("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
            }
        }
    }

    /// The schema version the database is at (0: none yet).
    static func version(_ connection: PostgresConnection) throws -> Int {
        let exists = try connection.scalarInt("SELECT count(*) FROM pg_tables WHERE tablename = 'schema_migrations' AND schemaname = current_schema()") ?? 0
        guard exists > 0 else { return 0 }
        return Int(try connection.scalarInt("SELECT coalesce(max(version), 0) FROM schema_migrations") ?? 0)
    }

    private static let accountsV1 = """
        CREATE TABLE users (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            username TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at BIGINT NOT NULL,
            -- The user's note sequence: every note change takes the next number as its rev,
            -- by UPDATE ... RETURNING, whose row lock serialises one user's writers (see
            -- docs/scaling.md, "The changes feed never skips").
            last_rev BIGINT NOT NULL DEFAULT 0,
            -- Tombstones with rev <= this were purged; older change cursors must resync.
            purged_through BIGINT NOT NULL DEFAULT 0
        );
        -- SQLite's UNIQUE COLLATE NOCASE (ASCII case-folding) until version 4's username_key.
        CREATE UNIQUE INDEX users_username ON users (lower(username));

        -- A signed-in device: one refresh token chain (RFC 6749 refresh rotation).
        CREATE TABLE sessions (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device TEXT NOT NULL DEFAULT '',
            created_at BIGINT NOT NULL,
            last_used_at BIGINT NOT NULL,
            revoked_at BIGINT,
            refresh_hash BYTEA NOT NULL UNIQUE,
            refresh_issued_at BIGINT NOT NULL,
            previous_refresh_hash BYTEA,
            previous_rotated_at BIGINT
        );
        CREATE INDEX sessions_user ON sessions(user_id);

        -- Refresh tokens already rotated away; presenting one again means it leaked.
        CREATE TABLE spent_refresh_tokens (
            hash BYTEA PRIMARY KEY,
            session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            spent_at BIGINT NOT NULL
        );
        CREATE INDEX spent_refresh_tokens_session ON spent_refresh_tokens(session_id);

        -- Bearer tokens: short-lived access tokens of a session, and personal tokens for scripts.
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            hash BYTEA NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('access', 'personal')),
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            session_id BIGINT REFERENCES sessions(id) ON DELETE CASCADE,
            name TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            created_at BIGINT NOT NULL,
            expires_at BIGINT,
            last_used_at BIGINT,
            revoked_at BIGINT
        );
        CREATE INDEX tokens_user ON tokens(user_id, kind);
        CREATE INDEX tokens_session ON tokens(session_id);

        """

    private static let notesV1 = """
        -- Each note's latest state; tombstones (deleted = 1) stay until purged.
        CREATE TABLE notes (
            nid BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            path TEXT NOT NULL,
            path_key TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size BIGINT NOT NULL,
            rev BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            -- The search document of a live note (NULL for a tombstone), kept by PostgreSQL
            -- itself in the same statement that writes the note.
            search tsvector GENERATED ALWAYS AS (
                CASE WHEN deleted = 0 THEN to_tsvector('notes_search', notes_search_text(path || ' ' || content)) END
            ) STORED,
            UNIQUE (user_id, id)
        );
        CREATE UNIQUE INDEX notes_live_path ON notes(user_id, path_key) WHERE deleted = 0;
        CREATE INDEX notes_by_path ON notes(user_id, path) WHERE deleted = 0;
        CREATE UNIQUE INDEX notes_by_rev ON notes(user_id, rev);
        -- One index answers "this user's notes with these words" (btree_gin adds user_id).
        CREATE INDEX notes_search ON notes USING gin (user_id, search) WHERE deleted = 0;

        -- Every revision of every note, the merge bases of sync.
        CREATE TABLE revisions (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            note_id TEXT NOT NULL,
            rev BIGINT NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size BIGINT NOT NULL,
            deleted INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, note_id, rev)
        );

        """

    /// The login throttle's counters (`LoginThrottle`), shared by every server so that N
    /// servers do not give an attacker N times the attempts. `kind` is `pair` (account and
    /// address), `account` or `address`; rows past `expires_at` are deleted as they are met.
    private static let loginThrottleV1 = """
        CREATE TABLE login_attempts (
            kind TEXT NOT NULL CHECK (kind IN ('pair', 'account', 'address')),
            key TEXT NOT NULL,
            count INTEGER NOT NULL,
            last_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            PRIMARY KEY (kind, key)
        );
        CREATE INDEX login_attempts_expiry ON login_attempts(expires_at);

        """

    private static let sessionsSuccessorV2 = """
        ALTER TABLE sessions ADD COLUMN successor_box BYTEA;
        CREATE INDEX sessions_successor ON sessions(previous_rotated_at) WHERE successor_box IS NOT NULL;

        """

    private static let revisionsDeviceV3 = """
        ALTER TABLE revisions ADD COLUMN device TEXT;

        """

    private static let usernameKeyV4 = """
        ALTER TABLE users ADD COLUMN username_key TEXT;
        UPDATE users SET username_key = lower(username);
        CREATE UNIQUE INDEX users_username_key ON users(username_key);

        """

    private static let renderedHTMLV5 = """
        CREATE TABLE rendered_html (
            nid BIGINT PRIMARY KEY REFERENCES notes(nid) ON DELETE CASCADE,
            rev BIGINT NOT NULL,
            html TEXT NOT NULL
        );

        """

    private static let renderingVersionV7 = """
        ALTER TABLE rendered_html ADD COLUMN renderer INTEGER NOT NULL DEFAULT 0;

        """

    /// What each server admitted per client address, exchanged about once a second
    /// (`SharedRateLedger`); rows older than two minutes are deleted as servers meet them.
    private static let rateUsageV14 = """
        CREATE TABLE rate_usage (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            limiter TEXT NOT NULL,
            server TEXT NOT NULL,
            address TEXT NOT NULL,
            count INTEGER NOT NULL,
            at BIGINT NOT NULL
        );
        CREATE INDEX rate_usage_at ON rate_usage(at);

        """
}
