import NotesCore

/// The server's database schema, as versioned migrations run at every start.
///
/// Times are integer milliseconds since the Unix epoch (UTC). Secrets are never stored: token
/// columns hold SHA-256 digests, passwords argon2id hashes.
enum ServerSchema {
    static let migrator = Migrator([
        .init(version: 1, name: "accounts, sessions, tokens, notes, revisions, search", sql: accountsV1 + notesV1),
        .init(version: 2, name: "a rotation's answer kept sealed for replays within the grace", sql: sessionsSuccessorV2),
        .init(version: 3, name: "the device that made each revision", sql: revisionsDeviceV3),
        .init(version: 4, name: "usernames looked up case-folded, Unicode included", sql: usernameKeyV4),
        .init(version: 5, name: "HTML rendered at first read and kept per revision, off the write path", sql: renderedHTMLV5),
        .init(version: 6, name: "search index changes queued and applied once per transaction", sql: searchQueueV6),
        .init(version: 7, name: "kept renderings carry the renderer's version", sql: renderingVersionV7),
        .init(version: 8, name: "attachments: entry kinds, media types, contents, holds and uploads", sql: attachmentsV8),
        .init(version: 9, name: "published notes, readable by an unguessable link", sql: publicationsV9),
        .init(version: 10, name: "browser sessions carried in a cookie", sql: webSessionsV10),
        .init(version: 11, name: "identities at OpenID Connect providers, sign-in state, one-time login codes", sql: signInV11),
        .init(version: 12, name: "device authorization codes (RFC 8628) for sign-in without a browser", sql: deviceCodesV12),
        .init(version: 13, name: "attachment content in the database (PostgreSQL only: SQLite keeps a directory)", sql: ""),
        // PostgreSQL only: one SQLite server keeps its request rates in memory.
        .init(version: 14, name: "request rates shared among the servers", sql: ""),
        // PostgreSQL only: SQLite has queued its search index changes since version 6.
        .init(version: 15, name: "search documents indexed after the write, from a queue of changed notes (PostgreSQL only: SQLite queues since version 6)",
              sql: ""),
        .init(version: 16, name: "search index made after the write from a queue of changed notes; revisions in a rowid table",
              sql: searchQueueV16 + revisionsRowidV16),
        .init(version: 17, name: "a revision's text stored once: NULL in the latest revision means the note's current text",
              sql: revisionsTextOnceV17),
        // PostgreSQL only: SQLite does not compress rows.
        .init(version: 18, name: "note text compressed with LZ4 (PostgreSQL only: SQLite does not compress rows)", sql: ""),
        .init(version: 19, name: "a new note queued for search by the writing code, not a trigger (SQLite only)", sql: queueByStatementV19),
        // PostgreSQL only: SQLite's queue is filled by the writing code (version 19) and its triggers.
        .init(version: 20, name: "notes queued for search once per statement, not per row (PostgreSQL only)", sql: ""),
        .init(version: 21, name: "accounts unlocked by an administrator, read by the sign-in throttles", sql: loginUnlocksV21),
    ])

    /// Each kept rendering records the renderer version that made it (`NoteStore.renderingVersion`);
    /// one made by an older renderer is made again at its next read, so a change of the
    /// renderer's output (refused links became their text) reaches every note, not only the
    /// ones edited since. Renderings kept before this version count as version 0.
    private static let renderingVersionV7 = """
        ALTER TABLE rendered_html ADD COLUMN renderer INTEGER NOT NULL DEFAULT 0;

        """

    /// The search index was kept by triggers writing into `notes_fts` on every note write. A
    /// statement that writes a virtual table runs under a statement savepoint, and FTS5 writes
    /// its pending index data to disk at every savepoint: each note became its own index
    /// segment, then merged, about a third of the server's time on an upload. The triggers now
    /// queue the change in a plain table, which was applied in one statement just before the
    /// transaction committed (until version 16 moved the indexing after the write): the index
    /// stayed as current as before (same transaction), built once per batch. Only a change of
    /// path, content or deletion touches the index.
    private static let searchQueueV6 = """
        DROP TRIGGER notes_fts_insert;
        DROP TRIGGER notes_fts_delete;
        DROP TRIGGER notes_fts_update;
        CREATE TABLE search_queue (
            seq INTEGER PRIMARY KEY,
            command TEXT,
            nid INTEGER NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL
        );
        CREATE TRIGGER notes_search_insert AFTER INSERT ON notes WHEN new.deleted = 0 BEGIN
            INSERT INTO search_queue (command, nid, path, content) VALUES (NULL, new.nid, new.path, new.content);
        END;
        CREATE TRIGGER notes_search_delete AFTER DELETE ON notes WHEN old.deleted = 0 BEGIN
            INSERT INTO search_queue (command, nid, path, content) VALUES ('delete', old.nid, old.path, old.content);
        END;
        CREATE TRIGGER notes_search_update AFTER UPDATE OF path, content, deleted ON notes BEGIN
            INSERT INTO search_queue (command, nid, path, content)
                SELECT 'delete', old.nid, old.path, old.content WHERE old.deleted = 0;
            INSERT INTO search_queue (command, nid, path, content)
                SELECT NULL, new.nid, new.path, new.content WHERE new.deleted = 0;
        END;

        """

    /// A note's HTML is rendered when first asked for and kept here with the revision it is of,
    /// rather than at every write: an upload of 10,000 notes does not pay for cmark, and a
    /// revision nobody reads is never rendered. A separate table, because any UPDATE of `notes`
    /// re-indexes the note for search (`notes_fts_update`).
    private static let renderedHTMLV5 = """
        CREATE TABLE rendered_html (
            nid INTEGER PRIMARY KEY REFERENCES notes(nid) ON DELETE CASCADE,
            rev INTEGER NOT NULL,
            html TEXT NOT NULL
        );
        INSERT INTO rendered_html (nid, rev, html) SELECT nid, rev, html FROM notes WHERE deleted = 0;
        ALTER TABLE notes DROP COLUMN html;

        """

    /// The answer of a session's last rotation (its new refresh and access tokens), encrypted
    /// under a key derived from the refresh token it spent, so a replay of that token within the
    /// grace window gets the same answer. Cleared when the grace window ends.
    private static let sessionsSuccessorV2 = """
        ALTER TABLE sessions ADD COLUMN successor_box BLOB;
        CREATE INDEX sessions_successor ON sessions(previous_rotated_at) WHERE successor_box IS NOT NULL;

        """

    /// The device (the session's name, or `token:NAME` for a personal token) that made each
    /// revision, for `notes log`. Null for revisions made before this version: nobody knows.
    private static let revisionsDeviceV3 = """
        ALTER TABLE revisions ADD COLUMN device TEXT;

        """

    /// The case-folded NFC username (`UserStore.key`), unique: `COLLATE NOCASE` folds ASCII
    /// only, and Unicode names are allowed from this version. Names before it are ASCII, whose
    /// key is SQLite's `lower()`.
    private static let usernameKeyV4 = """
        ALTER TABLE users ADD COLUMN username_key TEXT;
        UPDATE users SET username_key = lower(username);
        CREATE UNIQUE INDEX users_username_key ON users(username_key);

        """

    private static let accountsV1 = """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            -- The user's note sequence: every note change takes the next number as its rev.
            last_rev INTEGER NOT NULL DEFAULT 0,
            -- Tombstones with rev <= this were purged; older change cursors must resync.
            purged_through INTEGER NOT NULL DEFAULT 0
        );

        -- A signed-in device: one refresh token chain (RFC 6749 refresh rotation).
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            last_used_at INTEGER NOT NULL,
            revoked_at INTEGER,
            refresh_hash BLOB NOT NULL UNIQUE,
            refresh_issued_at INTEGER NOT NULL,
            previous_refresh_hash BLOB,
            previous_rotated_at INTEGER
        );
        CREATE INDEX sessions_user ON sessions(user_id);

        -- Refresh tokens already rotated away; presenting one again means it leaked.
        CREATE TABLE spent_refresh_tokens (
            hash BLOB PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            spent_at INTEGER NOT NULL
        ) WITHOUT ROWID;

        -- Bearer tokens: short-lived access tokens of a session, and personal tokens for scripts.
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('access', 'personal')),
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
            name TEXT NOT NULL DEFAULT '',
            scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            last_used_at INTEGER,
            revoked_at INTEGER
        );
        CREATE INDEX tokens_user ON tokens(user_id, kind);
        CREATE INDEX tokens_session ON tokens(session_id);

        """

    private static let notesV1 = """
        -- Each note's latest state; tombstones (deleted = 1) stay until purged.
        CREATE TABLE notes (
            nid INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            path TEXT NOT NULL,
            path_key TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            rev INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            -- Rendered at write time until version 5 (see renderedHTMLV5), which drops it.
            html TEXT NOT NULL DEFAULT '',
            UNIQUE (user_id, id)
        );
        CREATE UNIQUE INDEX notes_live_path ON notes(user_id, path_key) WHERE deleted = 0;
        CREATE INDEX notes_by_path ON notes(user_id, path) WHERE deleted = 0;
        CREATE UNIQUE INDEX notes_by_rev ON notes(user_id, rev);

        -- Every revision of every note, the merge bases of sync.
        CREATE TABLE revisions (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            note_id TEXT NOT NULL,
            rev INTEGER NOT NULL,
            path TEXT NOT NULL,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, note_id, rev)
        ) WITHOUT ROWID;

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
}
