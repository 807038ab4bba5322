/// Full-text search on PostgreSQL with the query semantics of the SQLite backend's FTS5 index
/// (`unicode61 remove_diacritics 2`): words ANDed, a word ending in `*` matches as a prefix,
/// no stemming, case- and accent-folding.
///
/// - **Tokens.** FTS5 splits text at every character that is not a letter or a digit. PostgreSQL's
///   parser knows more token kinds (a host `example.com`, a file path `notes/todo.md`) and
///   would index those whole, so `example` would not find `example.com`. `notes_search_text`
///   first turns every run of non-alphanumerics into a space (Unicode-aware under a UTF-8
///   `LC_CTYPE`; the database should not use the plain `C` locale), leaving only words.
/// - **Folding.** The `notes_search` configuration is a copy of `simple` (lower-casing, no
///   stemming, no stop words) with the `unaccent` dictionary (contrib) in front: `École` is
///   indexed as `ecole`. One difference is known: `unaccent` also expands ligatures (`ß` → `ss`,
///   `œ` → `oe`), which FTS5 leaves alone, so such words match more on PostgreSQL.
/// - **Queries.** `notes_search_query(words)` takes the query's words separated by spaces (see
///   `searchWords`), folds each with the same configuration, and ANDs them; a word that folds to
///   several tokens (`foo-bar`) is a phrase, as a quoted FTS5 string is; a trailing `*` makes
///   the last token a prefix (`:*`). Nothing in the words is query syntax: they are data.
extension PostgresSchema {
    /// Part of version 1: the extensions, the configuration and the functions above. `unaccent`
    /// and `btree_gin` are trusted extensions (PostgreSQL 13+): the database's owner may create
    /// them; otherwise a superuser runs these two `CREATE EXTENSION` statements once.
    static let searchV1 = """
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

    /// Version 15: the search document leaves the `notes` row for a table of its own, filled
    /// after the write by `PostgresSearchIndexer` from a queue of changed notes.
    ///
    /// Why: the generated column made every note write tokenise the note and update a GIN
    /// index inside the request (half of PostgreSQL's work per note of an upload, measured).
    /// From this version a write only queues the note's id (the trigger, one short insert); the document is
    /// made in batches, mostly after the requests were answered (`PostgresSearchIndexer`).
    ///
    /// - `note_search` holds the document of each live note (`kind = 'note'`) indexed so far.
    /// - `search_queue` holds the notes written since they were last indexed, at most one row
    ///   per note, and when each was first queued (milliseconds since the epoch, the database's
    ///   clock). The trigger fills it in the writing statement's own transaction, so a committed
    ///   change is always either indexed or queued, never neither; existing notes are queued here.
    /// - The trigger's `ON CONFLICT` locks a note's queue row even when it is there already:
    ///   an indexer that took the row first is waited for (and the note queued again after it),
    ///   one that comes second skips it (`SKIP LOCKED`), so no write can fall between an
    ///   indexer's read of the note and its removal of the queue row.
    /// Neither table refers to `notes`: a foreign key would make each write check it and every
    /// note deletion wait on an indexer's rows. The indexer drops the document of a note gone or
    /// deleted; an account's deletion drops its rows (`NoteStore.deleteAll`).
    static let searchTableV15 = """
        ALTER TABLE notes DROP COLUMN search;

        CREATE TABLE note_search (
            nid BIGINT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            search tsvector NOT NULL
        );
        -- One index answers "this user's notes with these words" (btree_gin adds user_id).
        CREATE INDEX note_search_words ON note_search USING gin (user_id, search);

        CREATE TABLE search_queue (
            nid BIGINT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            queued_at BIGINT NOT NULL
        );
        CREATE INDEX search_queue_user ON search_queue (user_id);

        CREATE FUNCTION notes_search_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO search_queue (nid, user_id, queued_at)
            VALUES (NEW.nid, NEW.user_id, (extract(epoch FROM now()) * 1000)::bigint)
            -- Already queued: lock the row (without changing it), so an indexer holding it is waited for.
            ON CONFLICT (nid) DO UPDATE SET queued_at = search_queue.queued_at WHERE false;
            RETURN NULL;
        END $$;
        CREATE TRIGGER notes_search_enqueue AFTER INSERT OR UPDATE OF path, content, deleted ON notes
            FOR EACH ROW WHEN (NEW.kind = 'note') EXECUTE FUNCTION notes_search_enqueue();

        INSERT INTO search_queue (nid, user_id, queued_at)
        SELECT nid, user_id, 0 FROM notes WHERE deleted = 0 AND kind = 'note';

        """

    /// The document `note_search` keeps for a note row `n` (a live note).
    static let searchDocument = "to_tsvector('notes_search', notes_search_text(n.path || ' ' || n.content))"

    /// The notes of user `user` whose words match `words` (`notes_search_query`), as `nid` and
    /// `rank`: those indexed from `note_search`, those still queued from their text, read now.
    /// Both halves read one snapshot, in which a note's queue row and its indexed document are
    /// replaced in one transaction, so the answer is never stale and never misses a note,
    /// however far the indexer trails the writes. `words` and `user` are placeholders.
    static func matchingNotes(words: String, user: String) -> String {
        """
        SELECT s.nid, ts_rank(s.search, q) AS rank
        FROM notes_search_query(\(words)) AS q, note_search s
        WHERE s.user_id = \(user) AND s.search @@ q AND NOT EXISTS (SELECT 1 FROM search_queue w WHERE w.nid = s.nid)
        UNION ALL
        SELECT n.nid, ts_rank(d.search, q)
        FROM notes_search_query(\(words)) AS q, search_queue w JOIN notes n ON n.nid = w.nid,
             LATERAL (SELECT \(searchDocument) AS search OFFSET 0) AS d
        WHERE w.user_id = \(user) AND n.deleted = 0 AND n.kind = 'note' AND d.search @@ q
        """
    }

    /// The search statement of `NoteStore.search`: binds the words (`searchWords`), the user id
    /// and the limit; answers id, path, rev and the note's text (its snippet is cut in Swift,
    /// `PostgresSearchSnippet`), best first.
    static let searchStatement = """
        WITH hits AS (\(matchingNotes(words: "?1", user: "?2")))
        SELECT n.id, n.path, n.rev, n.content
        FROM hits JOIN notes n ON n.nid = hits.nid
        WHERE n.deleted = 0
        ORDER BY hits.rank DESC, n.rev DESC LIMIT ?3
        """

    /// The words of a search box's text for `notes_search_query` (`SearchTerm`), space-separated,
    /// `*` after a prefix word; nil when no word is left.
    static func searchWords(_ query: String) -> String? {
        let words = SearchTerm.terms(of: query).map { $0.word + ($0.isPrefix ? "*" : "") }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
