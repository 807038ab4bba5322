import NotesCore

/// What users reach through history: the trash (deleted notes still kept), purging one note
/// for good, and the revision retention (`--revision-ttl`).
extension NoteStore {
    /// A deleted note that can still be restored: the tombstone and its last content revision.
    struct TrashRow: Sendable {
        let id: NoteID
        let path: String
        let rev: Int64
        let deletedAt: Int64
        let lastRev: Int64
        let size: Int
        let kind: EntryKind
    }

    /// Deleted notes that still have content to bring back, most recently deleted first:
    /// those with a tombstone revision below `before` (all when nil), at `path` when given.
    /// A purged note (a tombstone without revisions) is not listed: nothing of it is left.
    /// Only entries `kinds` lets through (clients before attachments see notes only).
    func trash(userID: Int64, path: String?, before: Int64?, limit: Int, kinds: EntryKindFilter = .legacyNotes) throws -> [TrashRow] {
        try database.read { db in
            try db.query("""
                SELECT n.id, n.path, n.rev, n.updated_at, r.rev, r.size, n.kind
                FROM notes n JOIN revisions r ON r.user_id = n.user_id AND r.note_id = n.id AND r.rev =
                    (SELECT max(rev) FROM revisions WHERE user_id = n.user_id AND note_id = n.id AND deleted = 0)
                WHERE n.user_id = ? AND n.deleted = 1 AND n.rev < ? AND (? IS NULL OR n.path = ?) AND \(kinds.sql(table: "n"))
                ORDER BY n.rev DESC LIMIT ?
                """, [userID, before ?? Int64.max, path, path, limit]) { row -> TrashRow in
                guard let id = NoteID(row.string(0)) else { throw DatabaseError(code: 11, message: "a stored note id is not a UUID") }
                return TrashRow(id: id, path: row.string(1), rev: row.int64(2), deletedAt: row.int64(3), lastRev: row.int64(4), size: row.int(5),
                                kind: EntryKind(rawValue: row.string(6)) ?? .note)
            }
        }
    }

    /// Removes the note's content and every revision of it for good, if it is at `ifMatch`.
    ///
    /// A live note is deleted first, so every folder syncs the deletion; the tombstone stays
    /// (without content or revisions) until the tombstone retention drops it, so the changes
    /// feed still carries it. The space SQLite frees is zeroed (`secure_delete`), the full-text
    /// index is rebuilt without the note's words (FTS5 otherwise keeps deleted terms in old
    /// segments until a merge) and the write-ahead log is truncated, so the text does not
    /// linger in the database files. Purging an already purged note changes nothing and
    /// answers as the first purge did (a retried request is safe).
    /// - Throws: 404 for no such note, `StaleNoteError` when the note is not at `ifMatch`.
    func purge(userID: Int64, id: NoteID, ifMatch: Int64) throws -> PurgeResult {
        let purged = try database.withWriter { db in
            // PostgreSQL has no secure_delete or search segments: the rows' space is reused
            // after VACUUM (autovacuum). The note's search document goes now, with its text,
            // rather than when the indexer comes to the deletion.
            guard let db = db as? Database else {
                return try db.transaction {
                    let result = try purgeRows(db, userID: userID, id: id, ifMatch: ifMatch)
                    try db.run("DELETE FROM note_search WHERE nid = (SELECT nid FROM notes WHERE user_id = ? AND id = ?)", userID, id.value)
                    return result
                }
            }
            let secureDelete = try db.scalarInt("PRAGMA secure_delete") ?? 0
            try db.execute("PRAGMA secure_delete = ON")
            defer { try? db.execute(secureDelete == 0 ? "PRAGMA secure_delete = OFF" : "PRAGMA secure_delete = ON") }
            let result = try db.transaction { () throws -> PurgeResult in
                let result = try purgeRows(db, userID: userID, id: id, ifMatch: ifMatch)
                // The note's index change waits in the queue (with its old text); apply it now,
                // so the merge below drops the note's terms instead of leaving them in two segments.
                if let nid = try db.first("SELECT nid FROM notes WHERE user_id = ? AND id = ?", [userID, id.value], row: { $0.int64(0) }) {
                    try SQLiteSearchIndex.indexQueued(db, where: "nid = ?", [nid], limit: nil)
                }
                try db.execute("INSERT INTO notes_fts(notes_fts) VALUES('optimize')")
                return result
            }
            // Old page images of the note stay in the WAL file until it is reused; truncate it.
            // Best effort: a busy checkpoint only delays that until the next one.
            try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return result
        }
        // Purging a live note deleted it first: a change its user's long polls must hear of.
        notifier.changed(user: userID)
        return purged
    }

    /// The rows of `purge`: the note deleted first if live, then every revision of it.
    private func purgeRows(_ db: some SQLConnection, userID: Int64, id: NoteID, ifMatch: Int64) throws -> PurgeResult {
        guard let existing = try Self.load(db, userID: userID, id: id, withContent: false) else {
            throw NoteStoreError.notFound
        }
        let kept = try db.scalarInt("SELECT count(*) FROM revisions WHERE user_id = ? AND note_id = ?", [userID, id.value]) ?? 0
        if existing.deleted && kept == 0 {
            return PurgeResult(id: id, path: existing.path, purgedRevisions: 0, rev: existing.rev)
        }
        guard existing.rev == ifMatch else {
            throw StaleNoteError(current: try Self.load(db, userID: userID, id: id, withContent: true),
                                 message: "The note changed since revision \(ifMatch); it is now at \(existing.rev).")
        }
        let tombstone = existing.deleted ? existing : try delete(db, userID: userID, id: id, ifMatch: ifMatch)
        let erased = try db.run("DELETE FROM revisions WHERE user_id = ? AND note_id = ?", userID, id.value)
        return PurgeResult(id: id, path: existing.path, purgedRevisions: erased, rev: tombstone.rev)
    }

    /// Deletes revisions created more than `age` milliseconds ago, except each note's latest
    /// and its latest with content (what a deleted note's restore brings back).
    ///
    /// A folder whose merge base was pruned merges against nothing, so a concurrent edit then
    /// becomes a conflict copy instead of a merge.
    @discardableResult
    func pruneRevisions(olderThanMilliseconds age: Int64) throws -> Int {
        let cutoff = clock.now() - age
        return try database.write { db in
            try db.run("""
                DELETE FROM revisions WHERE created_at < ? AND rev NOT IN (
                    (SELECT max(rev) FROM revisions r WHERE r.user_id = revisions.user_id AND r.note_id = revisions.note_id),
                    coalesce((SELECT max(rev) FROM revisions r
                              WHERE r.user_id = revisions.user_id AND r.note_id = revisions.note_id AND r.deleted = 0), 0))
                """, cutoff)
        }
    }
}
