import NotesCore

/// Notes of every user: reads, preconditioned writes, the changes feed and revisions.
///
/// Every write runs in one transaction that takes the user's next revision number, updates the
/// note and appends the revision, so readers never see half a change. HTML is rendered at the
/// first read of a revision and kept (`NoteStore+HTML.swift`), not at every write. Once a write
/// that can move a user's changes feed has committed, `notifier` wakes that user's long polls.
struct NoteStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    let limits: ServerLimits
    let notifier: any ChangeNotifier
    /// How notes render (`NoteRendering`): the server's flavour.
    var rendering = NoteRendering()

    /// Runs `body` in one write transaction and, once it committed, wakes `userID`'s long polls.
    ///
    /// Every write to a user's notes goes through here (a note's purge signals by itself), so
    /// no change can commit without its waiters hearing of it. A write that changed nothing (a
    /// retried create) wakes them for nothing: they read the feed again and wait on. Purging old
    /// tombstones signals nothing: it never moves a held request's cursor (held means the cursor
    /// is at the user's latest revision, which no purge passes).
    ///
    /// One user's writes wait for each other before they begin (`write(serializedBy:)`): every
    /// one takes the user's next revision number from one row, so on PostgreSQL two at once
    /// (a client with two batches in flight) would otherwise abort one and redo it.
    func write<T>(for userID: Int64, _ body: (any SQLConnection) throws -> T) throws -> T {
        let result = try database.write(serializedBy: Self.writeLockKey(of: userID), body)
        notifier.changed(user: userID)
        return result
    }

    /// The advisory lock of `userID`'s note writes: the user id under a tag of its own, so it
    /// meets no other lock's key (a refresh's keys are drawn from token digests).
    static func writeLockKey(of userID: Int64) -> Int64 {
        Int64(0x4E4F_5445) << 32 | (userID & 0xFFFF_FFFF)  // "NOTE"
    }

    /// The note with `id`, live or tombstone, with its content.
    func note(userID: Int64, id: NoteID) throws -> NoteRecord? {
        try database.readStatement { db in try Self.load(db, userID: userID, id: id, withContent: true) }
    }

    /// Live entries of the kinds `kinds` lets through, ordered by path, after the path
    /// `after`, at most `limit`; `path` filters to one.
    func list(userID: Int64, after: String?, limit: Int, path: String?, kinds: EntryKindFilter = .legacyNotes) throws -> [NoteRecord] {
        try database.read { db in
            if let path {
                return try db.query("SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND deleted = 0 AND path = ? AND \(kinds.sql)",
                                    [userID, path]) { try NoteRecord(row: $0, withContent: false) }
            }
            return try db.query("""
                SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND deleted = 0 AND path > ? AND \(kinds.sql) ORDER BY path LIMIT ?
                """, [userID, after ?? "", limit]) { try NoteRecord(row: $0, withContent: false) }
        }
    }

    /// Creates or changes a note (content and/or path) if `precondition` holds.
    /// - Returns: the note's state after the write and whether it was created.
    /// `device` is recorded on the revision (see `Principal.device`).
    /// - Throws: `StaleNoteError` (412), `NoteStoreError` when the path is taken or the note is missing,
    ///   `NotePathError` when a new path (a create, or a rename) breaks `NotePath.newNoteProblem`.
    /// `author`: the member writing in a shared space (`NoteStore+Authors.swift`).
    func put(userID: Int64, id: NoteID, path: NotePath, content: String, precondition: WritePrecondition, device: String? = nil,
             author: Int64? = nil) throws -> (note: NoteRecord, created: Bool) {
        try write(for: userID) { db in
            try Self.recordingAuthor(author, of: userID, entries: [id], in: db) {
                try put(db, userID: userID, id: id, path: path, content: content, precondition: precondition, device: device)
            }
        }
    }

    /// `put` inside an existing transaction (batch).
    /// `revisions`, when given, numbers the write instead of the user's row (a SQLite batch's counter, see `NoteBatch`).
    func put(_ db: some SQLConnection, userID: Int64, id: NoteID, path: NotePath, content: String, precondition: WritePrecondition, device: String? = nil,
             revisions: RevisionCounter? = nil) throws -> (note: NoteRecord, created: Bool) {
        let size = content.utf8.count
        guard size <= limits.maxNoteBytes else {
            throw NoteStoreError.tooLarge(limit: limits.maxNoteBytes, size: size)
        }
        return try putEntry(db, userID: userID, id: id, path: path, body: .note(content), hash: SHA256.hex(of: content), size: size,
                            precondition: precondition, device: device, revisions: revisions)
    }

    /// Creates or changes an attachment (content and/or path) if `precondition` holds: the
    /// user's content store must hold `hash` (uploaded, or reported present and held), whose
    /// size is recorded; the media type comes from the path.
    /// - Throws: as `put`, and `ContentStoreError.contentMissing` when the store lacks `hash`.
    func putAttachment(_ db: some SQLConnection, userID: Int64, id: NoteID, path: NotePath, hash: String, precondition: WritePrecondition,
                       device: String? = nil, revisions: RevisionCounter? = nil) throws -> (note: NoteRecord, created: Bool) {
        guard let size = try ContentStore.size(db, userID: userID, hash: hash) else { throw ContentStoreError.contentMissing(hash) }
        return try putEntry(db, userID: userID, id: id, path: path, body: .attachment, hash: hash, size: size,
                            precondition: precondition, device: device, revisions: revisions)
    }

    /// What an entry write stores besides its hash and size.
    private enum EntryBody {
        case note(String)
        case attachment

        var kind: EntryKind {
            if case .note = self { return .note }
            return .attachment
        }
    }

    private func putEntry(_ db: some SQLConnection, userID: Int64, id: NoteID, path: NotePath, body: EntryBody, hash: String, size: Int,
                          precondition: WritePrecondition, device: String?, revisions: RevisionCounter?) throws -> (note: NoteRecord, created: Bool) {
        let kind = body.kind
        let content: String
        if case .note(let text) = body { content = text } else { content = "" }
        let mediaType = kind == .attachment ? MediaType.forPath(path.value).value : nil
        let pathKey = path.collisionKey  // folded and normalised: worked out once for the read and the write
        let (existing, clash) = try Self.loadForWrite(db, userID: userID, id: id, pathKey: pathKey)
        let created: Bool
        switch try Self.entryWrite(existing: existing, clash: clash, path: path, kind: kind, hash: hash, precondition: precondition,
                                   current: { try Self.load(db, userID: userID, id: id, withContent: true) }) {
        case .unchanged(let note): return (note, false)
        case .write(let isCreate): created = isCreate
        }
        let now = clock.now()
        let createdAt = Self.createdAt(keptFrom: existing, now: now)
        let note: (Int64) -> NoteRecord = { rev in
            NoteRecord(id: id, path: path.value, content: nil, hash: hash, size: size, rev: rev,
                       createdAt: createdAt, updatedAt: now, deleted: false, kind: kind, mediaType: mediaType)
        }
        if db.dialect == .postgres {
            let rev = try Self.writeEntryInOneStatement(db, userID: userID, id: id, path: path, content: content, hash: hash, size: size,
                                                        createdAt: createdAt, now: now, device: device, kind: kind, mediaType: mediaType,
                                                        replacing: existing != nil)
            return (note(rev), created)
        }
        let rev = try revisions?.next() ?? nextRevision(db, userID: userID)
        if existing == nil {
            try db.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind, media_type)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                """, userID, id.value, path.value, pathKey, content, hash, size, rev, createdAt, now, kind.rawValue, mediaType)
            try SQLiteSearchIndex.queueInserted(db, userID: userID)
        } else if let existing {
            try Self.keepText(db, userID: userID, id: id, latest: existing.rev)
            try Self.forgetRendered(db, userID: userID, id: id)
            try db.run("""
                UPDATE notes SET path = ?, path_key = ?, content = ?, hash = ?, size = ?, rev = ?, created_at = ?, updated_at = ?, deleted = 0,
                    media_type = ?
                WHERE user_id = ? AND id = ?
                """, path.value, pathKey, content, hash, size, rev, createdAt, now, mediaType, userID, id.value)
        }
        try appendRevision(db, userID: userID, id: id, rev: rev, path: path.value, hash: hash, size: size, deleted: false,
                           now: now, device: device, kind: kind, mediaType: mediaType)
        return (note(rev), created)
    }

    /// The entry `id` of `userID` as a write needs it (without content), and whether another live
    /// entry of the user holds the path key `pathKey`: one statement, as both are always asked.
    private static func loadForWrite(_ db: some SQLConnection, userID: Int64, id: NoteID, pathKey: String) throws -> (existing: NoteRecord?, clash: Bool) {
        let answer = try db.first(loadForWriteSQL, [userID, pathKey, id.value, userID, id.value]) { row in
            (existing: row.isNull(1) ? nil : try NoteRecord(row: row, withContent: false, first: 1), clash: row.bool(0))
        }
        return answer ?? (nil, false)
    }

    /// `loadForWrite`'s statement, made once: built at every call, its column list was joined
    /// anew for each note (a 10,000-note upload: 5% of the requests' instructions, measured with callgrind).
    private static let loadForWriteSQL = """
        SELECT EXISTS (SELECT 1 FROM notes WHERE user_id = ? AND path_key = ? AND deleted = 0 AND id != ?), \(NoteRecord.columns(of: "n", withContent: false))
        FROM (SELECT 1) AS one LEFT JOIN notes n ON n.user_id = ? AND n.id = ?
        """

    /// PostgreSQL: takes the user's next revision number, writes the entry's row with it (a new
    /// row, or `replacing` the existing one, whose kept rendering goes) and appends the revision,
    /// all in one statement; returns the revision. What SQLite does statement by statement in
    /// `putEntry`, without the three round trips an upload would otherwise pay for each note.
    /// The note and the revision take their number from the answer of the `UPDATE` of the user's
    /// row, so it is allocated under that row's lock exactly as `nextRevision` allocates it
    /// (docs/scaling.md, "The changes feed never skips"). The revision is appended without its
    /// text (`keepText`); when `replacing`, the note's previous latest revision is given the old
    /// text first, read from the note's row as the statement found it (every part of one
    /// statement sees the same snapshot, so not the text this statement writes).
    private static func writeEntryInOneStatement(_ db: some SQLConnection, userID: Int64, id: NoteID, path: NotePath, content: String,
                                                 hash: String, size: Int, createdAt: Int64, now: Int64, device: String?, kind: EntryKind,
                                                 mediaType: String?, replacing: Bool) throws -> Int64 {
        let next = "next AS (UPDATE users SET last_rev = last_rev + 1 WHERE id = ? RETURNING last_rev)"
        let revision = """
            INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
            SELECT ?, ?, last_rev, ?, NULL, ?, ?, 0, ?, ?, ?, ? FROM next
            RETURNING rev
            """
        let revisionValues: [any SQLBindable] = [userID, id.value, path.value, hash, size, now, device, kind.rawValue, mediaType]
        let rev: Int64?
        if replacing {
            rev = try db.scalarInt("""
                WITH \(next),
                kept AS (
                    UPDATE revisions SET content = (SELECT content FROM notes WHERE user_id = ? AND id = ?)
                    WHERE user_id = ? AND note_id = ? AND content IS NULL
                ),
                forgotten AS (DELETE FROM rendered_html WHERE nid = (SELECT nid FROM notes WHERE user_id = ? AND id = ?)),
                entry AS (
                    UPDATE notes SET path = ?, path_key = ?, content = ?, hash = ?, size = ?, rev = next.last_rev, created_at = ?,
                        updated_at = ?, deleted = 0, media_type = ?
                    FROM next WHERE user_id = ? AND id = ?
                )
                \(revision)
                """, [userID, userID, id.value, userID, id.value, userID, id.value, path.value, path.collisionKey, content, hash, size, createdAt, now, mediaType,
                     userID, id.value] + revisionValues)
        } else {
            rev = try db.scalarInt("""
                WITH \(next),
                entry AS (
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind, media_type)
                    SELECT ?, ?, ?, ?, ?, ?, ?, last_rev, ?, ?, 0, ?, ? FROM next
                )
                \(revision)
                """, [userID, userID, id.value, path.value, path.collisionKey, content, hash, size, createdAt, now, kind.rawValue, mediaType]
                    + revisionValues)
        }
        guard let rev else { throw DatabaseError(code: 1, message: "the user of a note write does not exist") }
        return rev
    }

    /// Turns a note into a tombstone if it is at revision `ifMatch`. Deleting a tombstone again is a no-op.
    func delete(userID: Int64, id: NoteID, ifMatch: Int64, device: String? = nil, author: Int64? = nil) throws -> NoteRecord {
        try write(for: userID) { db in
            try Self.recordingAuthor(author, of: userID, entries: [id], in: db) {
                try delete(db, userID: userID, id: id, ifMatch: ifMatch, device: device)
            }
        }
    }

    /// `delete` inside an existing transaction (batch).
    func delete(_ db: some SQLConnection, userID: Int64, id: NoteID, ifMatch: Int64, device: String? = nil,
                revisions: RevisionCounter? = nil) throws -> NoteRecord {
        let existing = try Self.deletable(existing: try Self.load(db, userID: userID, id: id, withContent: false), ifMatch: ifMatch,
                                          current: { try Self.load(db, userID: userID, id: id, withContent: true) })
        if existing.deleted { return existing }
        let rev = try revisions?.next() ?? nextRevision(db, userID: userID)
        let now = clock.now()
        let emptyHash = Self.emptyHash
        try Self.keepText(db, userID: userID, id: id, latest: existing.rev)  // what a restore brings back
        try Self.forgetRendered(db, userID: userID, id: id)
        try db.run("""
            UPDATE notes SET content = '', hash = ?, size = 0, rev = ?, updated_at = ?, deleted = 1 WHERE user_id = ? AND id = ?
            """, emptyHash, rev, now, userID, id.value)
        try appendRevision(db, userID: userID, id: id, rev: rev, path: existing.path, hash: emptyHash, size: 0, deleted: true,
                           now: now, device: device, kind: existing.kind, mediaType: existing.mediaType)
        return NoteRecord(id: id, path: existing.path, content: nil, hash: emptyHash, size: 0, rev: rev,
                          createdAt: existing.createdAt, updatedAt: now, deleted: true, kind: existing.kind, mediaType: existing.mediaType)
    }

    static func load(_ db: some SQLConnection, userID: Int64, id: NoteID, withContent: Bool) throws -> NoteRecord? {
        try db.first("SELECT \(withContent ? NoteRecord.columnsWithContent : NoteRecord.columns) FROM notes WHERE user_id = ? AND id = ?",
                     [userID, id.value]) { try NoteRecord(row: $0, withContent: withContent) }
    }

    private func nextRevision(_ db: some SQLConnection, userID: Int64) throws -> Int64 {
        guard let rev = try db.scalarInt("UPDATE users SET last_rev = last_rev + 1 WHERE id = ? RETURNING last_rev", [userID]) else {
            throw DatabaseError(code: 1, message: "the user of a note write does not exist")
        }
        return rev
    }

    /// Appends the revision `rev` of `id`, without its text: NULL content is the note's current
    /// text, which the row just written holds (`keepText`).
    private func appendRevision(_ db: some SQLConnection, userID: Int64, id: NoteID, rev: Int64, path: String, hash: String, size: Int,
                                deleted: Bool, now: Int64, device: String?, kind: EntryKind, mediaType: String?) throws {
        try db.run("""
            INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
            VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)
            """, userID, id.value, rev, path, hash, size, deleted, now, device, kind.rawValue, mediaType)
    }

    /// Gives the entry's latest revision `latest` the text it stood for (the note's row) if it
    /// was stored without it, before a write changes the row (content, path or deletion).
    ///
    /// A revision is appended with NULL content, meaning "the note's current text" (schema
    /// version 17, `SchemaVersion17.swift`), so a write stores its text once. That
    /// holds only while the revision is the note's latest: every write to an existing row calls
    /// this first, so a revision older than the latest always holds its own text (what
    /// `notes log`, a restore and a merge base read). `latest` is the row's `rev`, the number
    /// of its latest revision: one row by the unique key, never a scan of the note's history.
    static func keepText(_ db: some SQLConnection, userID: Int64, id: NoteID, latest: Int64) throws {
        try db.run("""
            UPDATE revisions SET content = (SELECT content FROM notes WHERE user_id = ? AND id = ?)
            WHERE user_id = ? AND note_id = ? AND rev = ? AND content IS NULL
            """, userID, id.value, userID, id.value, latest)
    }

    /// How many live (not deleted) notes `userID` has.
    static func liveNoteCount(of userID: Int64, in db: some SQLConnection) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM notes WHERE user_id = ? AND deleted = 0", [userID]) ?? 0)
    }

    /// Deletes every note and revision of `userID`, inside the caller's transaction (the
    /// account is being deleted), and the account's search rows with them: on SQLite the
    /// deletions queued by the notes' trigger are indexed here, in the same transaction; on
    /// PostgreSQL the search tables, which refer to no note, are emptied.
    ///
    /// On PostgreSQL, run `takeSearchQueue(of:in:)` first.
    static func deleteAll(of userID: Int64, in db: some SQLConnection) throws {
        try ContentStore.deleteAll(of: userID, in: db)
        try db.run("DELETE FROM revisions WHERE user_id = ?", userID)
        try db.run("DELETE FROM notes WHERE user_id = ?", userID)
        if db.dialect == .postgres {
            try db.run("DELETE FROM note_search WHERE user_id = ?", userID)
            try db.run("DELETE FROM search_queue WHERE user_id = ?", userID)
        } else {
            try SQLiteSearchIndex.indexQueued(db, where: "user_id = ?", [userID], limit: nil)
        }
    }

    /// Takes `userID`'s notes off PostgreSQL's search queue (the account is about to be deleted),
    /// in a `READ COMMITTED` transaction of its own, before `deleteAll`'s.
    ///
    /// The indexer deletes queue rows as it works, in transactions of its own. `deleteAll`'s
    /// `SERIALIZABLE` transaction fails (`40001`) on any queue row the indexer deleted after its
    /// snapshot, so an account deleted while its upload was being indexed lost that race on every
    /// attempt, and `notes-server user delete` failed. Under `READ COMMITTED` a row the indexer
    /// holds is waited for and, once the indexer has taken it, passed by. When this returns, each
    /// of the account's notes was taken here or by an indexing that has committed, so the
    /// deletion's snapshot sees every search document that indexing wrote.
    static func takeSearchQueue(of userID: Int64, in database: ServerDatabase) throws {
        guard case .postgres(let pool) = database else { return }
        try pool.transaction(isolation: .readCommitted) { db in
            try db.run("DELETE FROM search_queue WHERE user_id = ?", userID)
        }
    }
}
