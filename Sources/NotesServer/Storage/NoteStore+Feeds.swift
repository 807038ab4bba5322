import Foundation
import NotesCore

/// The read-mostly views of notes: the changes feed, revisions, search and tombstone purging.
extension NoteStore {
    /// Walks the notes changed after the cursor `since`, in revision order, each once at its
    /// latest state, handing them one at a time to `take` until it returns false (the page is
    /// full), `limit` were taken, or none are left.
    ///
    /// One note at a time, so a page of large notes is never held twice: the caller writes each
    /// into its answer and lets it go. The walk runs inside one read, so a page is consistent.
    /// - Returns: the cursor after the last note taken, and whether more changes follow.
    /// - Throws: 410 `resync_required` when tombstones newer than a delta cursor were already
    ///   purged, or when the cursor is ahead of the account (the database was restored from a backup).
    /// Only entries `kinds` lets through are taken; the cursor still moves past the others.
    func changes(userID: Int64, since: NoteChangesCursor, limit: Int, includeContent: Bool, kinds: EntryKindFilter = .legacyNotes,
                 take: (NoteRecord) throws -> Bool) throws -> (cursor: NoteChangesCursor, hasMore: Bool) {
        try database.read { db in
            let account = try db.first("SELECT last_rev, purged_through FROM users WHERE id = ?", [userID]) {
                (lastRev: $0.int64(0), purged: $0.int64(1))
            } ?? (lastRev: 0, purged: 0)
            if since.rev > account.lastRev || (!since.fullWalk && since.rev < account.purged) {
                throw NoteStoreError.resyncRequired
            }
            let columns = includeContent ? NoteRecord.columnsWithContent : NoteRecord.columns
            var taken = 0
            var lastTaken = since.rev
            var hasMore = false
            try db.each("SELECT \(columns) FROM notes WHERE user_id = ? AND rev > ? AND \(kinds.sql) ORDER BY rev LIMIT ?",
                        [userID, since.rev, limit + 1]) { row in
                if taken == limit {
                    hasMore = true
                    return false
                }
                let record = try NoteRecord(row: row, withContent: includeContent)
                guard try take(record) else {
                    hasMore = true
                    return false
                }
                taken += 1
                lastTaken = record.rev
                return true
            }
            // The last page has seen everything up to the account's latest revision, whatever the
            // last row was (a purged tombstone may have been the newest change).
            let end = hasMore ? lastTaken : account.lastRev
            return (NoteChangesCursor(rev: end, fullWalk: since.fullWalk && end < account.purged), hasMore)
        }
    }

    /// Every revision of an entry, newest first, without content.
    func revisions(userID: Int64, id: NoteID) throws -> [RevisionResource] {
        try database.read { db in
            try db.query("""
                SELECT r.rev, r.path, r.hash, r.size, r.deleted, r.created_at, r.device, r.kind, r.media_type, a.username
                FROM revisions r LEFT JOIN users a ON a.id = coalesce(r.author_id, r.user_id) AND a.kind = 'account'
                WHERE r.user_id = ? AND r.note_id = ? ORDER BY r.rev DESC
                """, [userID, id.value]) { row in
                RevisionResource(id: id, rev: row.int64(0), path: row.string(1), hash: row.string(2), size: row.int(3),
                                 deleted: row.bool(4), createdAt: WireTime.string(fromMilliseconds: row.int64(5)), content: nil,
                                 device: row.isNull(6) ? nil : row.string(6), kind: EntryKind(rawValue: row.string(7)) ?? .note,
                                 mediaType: row.isNull(8) ? nil : row.string(8), author: row.optionalString(9))
            }
        }
    }

    /// One revision of an entry: a note's with its content (a merge base for sync), an
    /// attachment's with its hash only (its bytes are fetched by hash). A revision stored
    /// without its text is the note's latest, whose text is the note's (`NoteStore.keepText`).
    func revision(userID: Int64, id: NoteID, rev: Int64) throws -> RevisionResource? {
        try database.read { db in
            try db.first("""
                SELECT r.rev, r.path, r.hash, r.size, r.deleted, r.created_at, coalesce(r.content, n.content, ''), r.device, r.kind, r.media_type,
                       a.username
                FROM revisions r LEFT JOIN notes n ON n.user_id = r.user_id AND n.id = r.note_id
                    LEFT JOIN users a ON a.id = coalesce(r.author_id, r.user_id) AND a.kind = 'account'
                WHERE r.user_id = ? AND r.note_id = ? AND r.rev = ?
                """, [userID, id.value, rev]) { row in
                let kind = EntryKind(rawValue: row.string(8)) ?? .note
                return RevisionResource(id: id, rev: row.int64(0), path: row.string(1), hash: row.string(2), size: row.int(3),
                                        deleted: row.bool(4), createdAt: WireTime.string(fromMilliseconds: row.int64(5)),
                                        content: kind == .note ? row.string(6) : nil,
                                        device: row.isNull(7) ? nil : row.string(7), kind: kind, mediaType: row.isNull(9) ? nil : row.string(9),
                                        author: row.optionalString(10))
            }
        }
    }

    /// Full-text search over live notes' paths and content, best match first.
    ///
    /// The query is taken as plain words (each quoted for FTS5, so no query syntax can fail);
    /// a word ending in `*` matches as a prefix. Snippets are plain text with the matches'
    /// ranges beside it (FTS5 marks them with two control characters, taken out here; a note
    /// that itself holds U+0002 or U+0003 at a match may get a highlight slightly off, never more).
    ///
    /// The user's notes still queued for the search index are indexed first, in short
    /// transactions of their own. On SQLite that is what makes the answer current: FTS5 finds
    /// only what it indexed (`SQLiteSearchIndex.indexQueued(_:userID:)`), so every write
    /// acknowledged before the search is found (up to 100,000 queued notes of the user's; any
    /// beyond, once the indexer has them). On PostgreSQL (`PostgresSearchIndexer`) the answer
    /// does not depend on it (queued notes are matched from their text), only its cost does.
    func search(userID: Int64, query: String, limit: Int) throws -> SearchResults {
        try indexQueuedSearches(of: userID, query: query)
        return try database.read { db in
            let hits = db.dialect == .postgres ? try Self.searchPostgres(db, userID: userID, query: query, limit: limit)
                                               : try Self.searchSQLite(db, userID: userID, query: query, limit: limit)
            return SearchResults(results: hits)
        }
    }

    /// FTS5's answer, each word quoted (so no query syntax can fail), `*` kept for a prefix.
    private static func searchSQLite(_ db: some SQLConnection, userID: Int64, query: String, limit: Int) throws -> [SearchResults.Hit] {
        let terms = SearchTerm.terms(of: query).map { term in
            "\"" + term.word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (term.isPrefix ? "*" : "")
        }
        guard !terms.isEmpty else { return [] }
        return try db.compactQuery("""
            SELECT n.id, n.path, n.rev, snippet(notes_fts, 1, char(2), char(3), '…', 16)
            FROM notes_fts JOIN notes n ON n.nid = notes_fts.rowid
            WHERE notes_fts MATCH ? AND n.user_id = ? AND n.deleted = 0 AND n.kind = 'note'
            ORDER BY bm25(notes_fts) LIMIT ?
            """, [terms.joined(separator: " "), userID, limit]) { hit($0, marked: $0.string(3)) }
    }

    /// PostgreSQL's text search with the same semantics (`PostgresSchema+Search.swift`), the
    /// snippet cut from the note's text as FTS5 cuts it (`PostgresSearchSnippet`).
    private static func searchPostgres(_ db: some SQLConnection, userID: Int64, query: String, limit: Int) throws -> [SearchResults.Hit] {
        guard let words = PostgresSchema.searchWords(query) else { return [] }
        let terms = PostgresSearchSnippet.Terms(SearchTerm.terms(of: query))
        return try db.compactQuery(PostgresSchema.searchStatement, [words, userID, limit]) { row in
            hit(row, marked: PostgresSearchSnippet.marked(row.string(3), terms: terms))
        }
    }

    /// A hit from a row of id, path and rev, with a snippet whose matches sit between U+0002 and U+0003.
    ///
    /// Both backends cut their snippets by words (16 of them), and a word can be a whole line of
    /// megabytes: the snippet is bounded here, once for both, to a few hundred characters around
    /// the match (`SearchResults.Hit.maxSnippetScalars`), so no note makes an answer large.
    private static func hit(_ row: any SQLRow, marked: String) -> SearchResults.Hit? {
        guard let id = NoteID(row.string(0)) else { return nil }
        let (text, highlights) = SearchHighlight.parse(marked, open: "\u{2}", close: "\u{3}")
        return SearchResults.Hit(id: id, path: row.string(1), text: text, highlights: highlights, rev: row.int64(2)).boundingSnippet()
    }

    /// Removes tombstones older than `age` milliseconds, with their revisions, and records per
    /// user how far purging went, so older change cursors get `resync_required`.
    @discardableResult
    func purgeTombstones(olderThanMilliseconds age: Int64) throws -> Int {
        let cutoff = clock.now() - age
        return try database.write { db in
            try db.run("""
                UPDATE users SET purged_through = \(db.greatest("purged_through",
                    "(SELECT max(rev) FROM notes WHERE notes.user_id = users.id AND deleted = 1 AND updated_at < ?)"))
                WHERE EXISTS (SELECT 1 FROM notes WHERE notes.user_id = users.id AND deleted = 1 AND updated_at < ?)
                """, cutoff, cutoff)
            try db.run("""
                DELETE FROM revisions WHERE (user_id, note_id) IN (SELECT user_id, id FROM notes WHERE deleted = 1 AND updated_at < ?)
                """, cutoff)
            return try db.run("DELETE FROM notes WHERE deleted = 1 AND updated_at < ?", cutoff)
        }
    }

    /// Indexes `userID`'s notes queued for search before a search for `query` reads the index.
    func indexQueuedSearches(of userID: Int64, query: String) throws {
        switch database {
        case .sqlite(let queue):
            if !SearchTerm.terms(of: query).isEmpty { try SQLiteSearchIndex.indexQueued(queue, userID: userID) }
        case .postgres(let pool):
            if PostgresSchema.searchWords(query) != nil { try PostgresSearchIndexer.indexQueued(pool, userID: userID) }
        }
    }
}
