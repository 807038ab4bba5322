extension SchemaVersion {
    /// Version 1: accounts, sessions, tokens, notes and revisions on both backends; full-text
    /// search (FTS5 on SQLite, a generated `tsvector` on PostgreSQL) and, on PostgreSQL only, the
    /// login throttle's shared counters (SQLite's throttle keeps them in memory).
    static let v1 = SchemaVersion(version: 1, name: "accounts, sessions, tokens, notes, revisions, search, login throttle",
                                  sqlite: accounts(.sqlite) + notes(.sqlite) + sqliteSearch,
                                  postgres: postgresSearch + accounts(.postgres) + notes(.postgres) + postgresLoginThrottle)

    /// Accounts, sessions and tokens. A user's `last_rev` is the note sequence: every note change
    /// takes the next number as its rev, on PostgreSQL by `UPDATE ... RETURNING`, whose row lock
    /// serialises one user's writers (see docs/scaling.md, "The changes feed never skips").
    /// Usernames are unique under SQLite's `COLLATE NOCASE` (ASCII case-folding), on PostgreSQL
    /// by an index on `lower(username)`, until version 4's `username_key`.
    private static func accounts(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE users (
            id \(sql.rowID),
            username TEXT NOT NULL\(sql == .sqlite ? " UNIQUE COLLATE NOCASE" : ""),
            password_hash TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at \(sql.int64) NOT NULL,
            -- The user's note sequence: every note change takes the next number as its rev.
            last_rev \(sql.int64) NOT NULL DEFAULT 0,
            -- Tombstones with rev <= this were purged; older change cursors must resync.
            purged_through \(sql.int64) NOT NULL DEFAULT 0
        );
        \(sql == .postgres ? "CREATE UNIQUE INDEX users_username ON users (lower(username));\n" : "")
        -- A signed-in device: one refresh token chain (RFC 6749 refresh rotation).
        CREATE TABLE sessions (
            id \(sql.rowID),
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device TEXT NOT NULL DEFAULT '',
            created_at \(sql.int64) NOT NULL,
            last_used_at \(sql.int64) NOT NULL,
            revoked_at \(sql.int64),
            refresh_hash \(sql.bytes) NOT NULL UNIQUE,
            refresh_issued_at \(sql.int64) NOT NULL,
            previous_refresh_hash \(sql.bytes),
            previous_rotated_at \(sql.int64)
        );
        CREATE INDEX sessions_user ON sessions(user_id);

        -- Refresh tokens already rotated away; presenting one again means it leaked.
        CREATE TABLE spent_refresh_tokens (
            hash \(sql.bytes) PRIMARY KEY,
            session_id \(sql.int64) NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            spent_at \(sql.int64) NOT NULL
        )\(sql.withoutRowID);
        \(sql == .postgres ? "CREATE INDEX spent_refresh_tokens_session ON spent_refresh_tokens(session_id);\n" : "")
        -- Bearer tokens: short-lived access tokens of a session, and personal tokens for scripts.
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            hash \(sql.bytes) NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('access', 'personal')),
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            session_id \(sql.int64) REFERENCES sessions(id) ON DELETE CASCADE,
            name TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            created_at \(sql.int64) NOT NULL,
            expires_at \(sql.int64),
            last_used_at \(sql.int64),
            revoked_at \(sql.int64)
        );
        CREATE INDEX tokens_user ON tokens(user_id, kind);
        CREATE INDEX tokens_session ON tokens(session_id);

        """
    }

    /// Notes and their revisions. A note row also holds, on SQLite, its HTML rendered at write
    /// time (until version 5 moved renderings to a table of their own), and on PostgreSQL its
    /// search document, a generated column.
    private static func notes(_ sql: SQLDialect) -> String {
        """
        -- Each note's latest state; tombstones (deleted = 1) stay until purged.
        CREATE TABLE notes (
            nid \(sql.rowID),
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            path TEXT NOT NULL,
            path_key TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size \(sql.int64) NOT NULL,
            rev \(sql.int64) NOT NULL,
            created_at \(sql.int64) NOT NULL,
            updated_at \(sql.int64) NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
        \(sql == .sqlite ? sqliteNotesHTML : postgresNotesSearch)
            UNIQUE (user_id, id)
        );
        CREATE UNIQUE INDEX notes_live_path ON notes(user_id, path_key) WHERE deleted = 0;
        CREATE INDEX notes_by_path ON notes(user_id, path) WHERE deleted = 0;
        CREATE UNIQUE INDEX notes_by_rev ON notes(user_id, rev);
        \(sql == .postgres ? postgresNotesSearchIndex : "")
        -- Every revision of every note, the merge bases of sync.
        CREATE TABLE revisions (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            note_id TEXT NOT NULL,
            rev \(sql.int64) NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size \(sql.int64) NOT NULL,
            deleted INTEGER NOT NULL,
            created_at \(sql.int64) NOT NULL,
            PRIMARY KEY (user_id, note_id, rev)
        )\(sql.withoutRowID);

        """
    }

    /// The note's HTML column on SQLite, lines of `notes(.sqlite)`.
    private static let sqliteNotesHTML = """
            -- Rendered at write time until version 5 (see renderedHTMLV5), which drops it.
            html TEXT NOT NULL DEFAULT '',
        """

    /// The search document of a live note (NULL for a tombstone), kept by PostgreSQL itself in
    /// the same statement that writes the note; lines of `notes(.postgres)`.
    private static let postgresNotesSearch = """
            search tsvector GENERATED ALWAYS AS (
                CASE WHEN deleted = 0 THEN to_tsvector('notes_search', notes_search_text(path || ' ' || content)) END
            ) STORED,
        """

    /// One index answers "this user's notes with these words" (btree_gin adds user_id).
    private static let postgresNotesSearchIndex = """
        CREATE INDEX notes_search ON notes USING gin (user_id, search) WHERE deleted = 0;

        """

    /// SQLite's full-text index of notes (FTS5), kept by triggers.
    private static let sqliteSearch = """

        CREATE VIRTUAL TABLE notes_fts USING fts5(
            path, content, content = 'notes', content_rowid = 'nid',
            tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes WHEN new.deleted = 0 BEGIN
            INSERT INTO notes_fts(rowid, path, content) VALUES (new.nid, new.path, new.content);
        END;
        CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes WHEN old.deleted = 0 BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, path, content) VALUES ('delete', old.nid, old.path, old.content);
        END;
        CREATE TRIGGER notes_fts_update AFTER UPDATE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, path, content)
                SELECT 'delete', old.nid, old.path, old.content WHERE old.deleted = 0;
            INSERT INTO notes_fts(rowid, path, content)
                SELECT new.nid, new.path, new.content WHERE new.deleted = 0;
        END;

        """

    /// The extensions, the text search configuration and the functions of PostgreSQL's search
    /// (`PostgresSchema+Search.swift` says what they do). `unaccent`
    /// and `btree_gin` are trusted extensions (PostgreSQL 13+): the database's owner may create
    /// them; otherwise a superuser runs these two `CREATE EXTENSION` statements once.
    private static let postgresSearch = """
        CREATE EXTENSION IF NOT EXISTS unaccent;
        CREATE EXTENSION IF NOT EXISTS btree_gin;
        CREATE TEXT SEARCH CONFIGURATION notes_search (COPY = pg_catalog.simple);
        ALTER TEXT SEARCH CONFIGURATION notes_search
            ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
            WITH unaccent, simple;

        -- The words of a document or query word, as FTS5's unicode61 tokenizer sees them.
        CREATE FUNCTION notes_search_text(document text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT regexp_replace(document, '[^[:alnum:]]+', ' ', 'g') $$;

        CREATE AGGREGATE notes_tsquery_and(tsquery) (SFUNC = tsquery_and, STYPE = tsquery);

        -- The query for space-separated words, each ending in * when it is a prefix.
        CREATE FUNCTION notes_search_query(words text) RETURNS tsquery
            LANGUAGE sql STABLE STRICT PARALLEL SAFE
            AS $$
                SELECT coalesce(notes_tsquery_and(
                    CASE WHEN word LIKE '%*' AND numnode(phrase) > 0 THEN (phrase::text || ':*')::tsquery ELSE phrase END
                ), ''::tsquery)
                FROM regexp_split_to_table(words, '\\s+') AS word,
                     phraseto_tsquery('notes_search', notes_search_text(btrim(word, '*'))) AS phrase
                WHERE btrim(word, '*') <> ''
            $$;

        """

    /// The login throttle's counters (`LoginThrottle`), shared by every server so that N
    /// servers do not give an attacker N times the attempts. `kind` is `pair` (account and
    /// address), `account` or `address`; rows past `expires_at` are deleted as they are met.
    private static let postgresLoginThrottle = """
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
}
