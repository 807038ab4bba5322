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
///
/// The configuration and the functions are made by version 1 (`SchemaVersion1.swift`), the
/// `note_search` table and its queue by version 15 (`SchemaVersion15.swift`).
extension PostgresSchema {
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
