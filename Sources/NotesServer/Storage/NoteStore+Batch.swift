import NotesCore

extension NoteStore {
    /// The writes of one batch request in the transaction `db`, which `write(for:)` opened for
    /// `userID`. `ids` and `paths` are the batch's operations' ids and raw paths, read ahead on
    /// PostgreSQL (a guess: an operation whose row was not read ahead reads it when it runs).
    func batch(_ db: any SQLConnection, userID: Int64, device: String?, ids: [NoteID], paths: [String]) throws -> NoteBatch {
        try NoteBatch(store: self, db: db, userID: userID, device: device, ids: ids, paths: paths)
    }
}

/// A batch's puts and deletes, each decided and answered as a request alone would be
/// (`NoteStore+WriteChecks.swift`), in the order they come.
///
/// On SQLite each runs its statements at once: they are calls into the process, not round trips.
/// Their revision numbers come from a counter read with the batch's first statement (under the
/// one writer, so no other write takes a number meanwhile) and stored in the user's row once, at
/// `finish`, before the commit: not an `UPDATE` of that row per note (10,000 statements in an
/// upload of 10,000 notes). The numbers and the stored counter are the ones per-note `UPDATE`s
/// would give: a refused operation takes none, and a failed batch rolls back with its counter.
/// On PostgreSQL each was two round trips, and an upload's thousand notes two thousand. Here
/// the batch instead
///
/// 1. reads, in one statement, the user's revision counter (locking the user's row, as
///    `nextRevision` does: the changes feed never skips) and every row an operation may look at:
///    those of its ids, and the live ones holding its paths' collision keys;
/// 2. decides each operation against those rows as the batch's earlier writes left them, taking
///    revision numbers one by one from the counter, and keeps the writes;
/// 3. writes them at `finish` in one statement (`unnest` of one array per column): the notes
///    inserted and updated, their renderings forgotten, the revisions appended, the counter set.
///    The search queue's trigger fills the queue in that statement, inside the transaction.
///
/// PostgreSQL checks the live-path unique index row by row within a statement, in no order the
/// batch controls, so a write that takes a path key another note of the batch gave up earlier
/// (a rename, then a create at the old path), or a second write to one note, starts a new
/// statement: the writes go in as many statements as the batch has such steps, in order.
final class NoteBatch {
    private let store: NoteStore
    private let db: any SQLConnection
    private let userID: Int64
    private let device: String?
    /// Set on PostgreSQL: the rows read and the writes kept until `finish`.
    private var deferred: DeferredWrites?
    /// Set on SQLite: the revision numbers of the batch's writes, stored in the user's row at `finish`.
    private var counter: RevisionCounter?
    /// The user's latest revision before the batch's first write (read under the writer or the
    /// user's row lock, so no other write lands between it and the batch's own).
    let revisionBefore: Int64

    fileprivate init(store: NoteStore, db: any SQLConnection, userID: Int64, device: String?, ids: [NoteID], paths: [String]) throws {
        self.store = store
        self.db = db
        self.userID = userID
        self.device = device
        if db.dialect == .postgres {
            let deferred = try DeferredWrites(db, userID: userID, ids: ids, pathKeys: paths.map(NotePath.collisionKey(of:)))
            self.deferred = deferred
            revisionBefore = deferred.lastRevision
        } else {
            revisionBefore = try Self.latestRevision(db, userID: userID)
            counter = RevisionCounter(last: revisionBefore)
        }
    }

    /// The user's latest revision now, counting the batch's writes so far (after `finish`: all of them).
    func revisionNow() throws -> Int64 {
        try deferred?.lastRevision ?? counter?.last ?? Self.latestRevision(db, userID: userID)
    }

    private static func latestRevision(_ db: any SQLConnection, userID: Int64) throws -> Int64 {
        try db.scalarInt("SELECT last_rev FROM users WHERE id = ?", [userID]) ?? 0
    }

    /// `NoteStore.put` in the batch.
    func put(id: NoteID, path: NotePath, content: String, precondition: WritePrecondition) throws -> (note: NoteRecord, created: Bool) {
        guard let deferred else {
            return try store.put(db, userID: userID, id: id, path: path, content: content, precondition: precondition, device: device,
                                 revisions: counter)
        }
        let size = content.utf8.count
        guard size <= store.limits.maxNoteBytes else { throw NoteStoreError.tooLarge(limit: store.limits.maxNoteBytes, size: size) }
        return try putEntry(deferred, id: id, path: path, content: content, hash: SHA256.hex(of: content), size: size, kind: .note,
                            precondition: precondition)
    }

    /// `NoteStore.putAttachment` in the batch.
    func putAttachment(id: NoteID, path: NotePath, hash: String, precondition: WritePrecondition) throws -> (note: NoteRecord, created: Bool) {
        guard let deferred else {
            return try store.putAttachment(db, userID: userID, id: id, path: path, hash: hash, precondition: precondition, device: device,
                                           revisions: counter)
        }
        guard let size = try ContentStore.size(db, userID: userID, hash: hash) else { throw ContentStoreError.contentMissing(hash) }
        return try putEntry(deferred, id: id, path: path, content: "", hash: hash, size: size, kind: .attachment, precondition: precondition)
    }

    /// `NoteStore.delete` in the batch.
    func delete(id: NoteID, ifMatch: Int64) throws -> NoteRecord {
        guard let deferred else {
            return try store.delete(db, userID: userID, id: id, ifMatch: ifMatch, device: device, revisions: counter)
        }
        let row = try deferred.row(id, in: db)
        let existing = try NoteStore.deletable(existing: row?.record, ifMatch: ifMatch, current: { try deferred.current(id, in: db) })
        if existing.deleted { return existing }
        let now = store.clock.now()
        let tombstone = NoteRecord(id: id, path: existing.path, content: nil, hash: NoteStore.emptyHash, size: 0, rev: deferred.nextRevision(),
                                   createdAt: existing.createdAt, updatedAt: now, deleted: true, kind: existing.kind,
                                   mediaType: existing.mediaType)
        // A tombstone keeps its row's path key (only live rows hold theirs).
        deferred.keep(tombstone, pathKey: row?.pathKey ?? NotePath.collisionKey(of: existing.path), content: "")
        return tombstone
    }

    /// Writes what the batch kept (PostgreSQL), or stores the revision counter (SQLite, which
    /// wrote the notes as it went). Must run before the transaction commits.
    func finish() throws {
        try deferred?.write(db, userID: userID, device: device)
        if let counter, counter.last != revisionBefore {
            guard try db.run("UPDATE users SET last_rev = ? WHERE id = ?", counter.last, userID) == 1 else {
                throw DatabaseError(code: 1, message: "the user of a note write does not exist")
            }
        }
    }

    private func putEntry(_ deferred: DeferredWrites, id: NoteID, path: NotePath, content: String, hash: String, size: Int, kind: EntryKind,
                          precondition: WritePrecondition) throws -> (note: NoteRecord, created: Bool) {
        let existing = try deferred.row(id, in: db)?.record
        let pathKey = path.collisionKey
        let clash = try deferred.liveHolder(of: pathKey, in: db).map { $0 != id } ?? false
        let created: Bool
        switch try NoteStore.entryWrite(existing: existing, clash: clash, path: path, kind: kind, hash: hash, precondition: precondition,
                                        current: { try deferred.current(id, in: db) }) {
        case .unchanged(let note): return (note, false)
        case .write(let isCreate): created = isCreate
        }
        let now = store.clock.now()
        let note = NoteRecord(id: id, path: path.value, content: nil, hash: hash, size: size, rev: deferred.nextRevision(),
                              createdAt: NoteStore.createdAt(keptFrom: existing, now: now), updatedAt: now, deleted: false, kind: kind,
                              mediaType: kind == .attachment ? MediaType.forPath(path.value).value : nil)
        deferred.keep(note, pathKey: pathKey, content: content)
        return (note, created)
    }
}

extension NoteStore {
    /// The hash of a tombstone's (empty) content.
    static let emptyHash = SHA256.hex(of: "")
}

/// The revision numbers a SQLite batch gives its writes, one after another from the user's
/// counter as the batch read it (see `NoteBatch`).
final class RevisionCounter {
    /// The last number given (the counter as read, before the first).
    private(set) var last: Int64

    init(last: Int64) {
        self.last = last
    }

    func next() -> Int64 {
        last += 1
        return last
    }
}
