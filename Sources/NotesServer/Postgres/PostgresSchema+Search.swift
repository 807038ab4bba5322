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

    /// The search statement of `NoteStore.search`: binds the words (`searchWords`), the user id
    /// and the limit; answers id, path, rev and the note's text (its snippet is cut in Swift,
    /// `PostgresSearchSnippet`), best first.
    static let searchStatement = """
        SELECT n.id, n.path, n.rev, n.content
        FROM notes n, notes_search_query(?) AS q
        WHERE n.user_id = ? AND n.deleted = 0 AND n.search @@ q
        ORDER BY ts_rank(n.search, q) DESC, n.rev DESC LIMIT ?
        """

    /// The words of a search box's text for `notes_search_query` (`SearchTerm`), space-separated,
    /// `*` after a prefix word; nil when no word is left.
    static func searchWords(_ query: String) -> String? {
        let words = SearchTerm.terms(of: query).map { $0.word + ($0.isPrefix ? "*" : "") }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
