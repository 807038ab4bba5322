import NotesCore

/// The rows a PostgreSQL batch looks at and the writes it keeps until `write` (see `NoteBatch`).
///
/// The rows are the database's as the batch's own earlier writes left them: a row the batch
/// wrote is never read again from the database (which does not have the write yet). Every row
/// an operation asks about is known exactly: by id, read ahead or read when first asked; by
/// path key, every live row holding it, read ahead or read when first asked (rows the batch
/// knows already keep the batch's state).
final class DeferredWrites {
    /// A row as the batch sees it; `content` is known for the rows the batch wrote.
    struct Row {
        var record: NoteRecord
        var pathKey: String
        var content: String?
    }

    /// One kept write: the row's new state, inserted or `replacing` the row of its id.
    private struct Write {
        let note: NoteRecord
        let pathKey: String
        let content: String
        let replacing: Bool
    }

    private let userID: Int64
    private var rows: [NoteID: Row] = [:]
    /// Ids known to have no row.
    private var absent: Set<NoteID> = []
    /// Path keys whose live holders are all in `rows`.
    private var loadedKeys: Set<String> = []
    /// The id of the live row holding each path key, among `rows`.
    private var liveHolders: [String: NoteID] = [:]
    /// The user's latest revision number, counting the kept writes.
    private(set) var lastRevision: Int64
    /// The kept writes, statement by statement (`NoteBatch` says when a new one starts).
    private var statements: [[Write]] = [[]]
    private var idsInStatement: Set<NoteID> = []
    /// The path keys given up (a rename, a delete) by the last statement's writes.
    private var keysFreedInStatement: Set<String> = []

    /// Reads the user's revision counter, locking the user's row until the transaction ends
    /// (the lock `nextRevision`'s `UPDATE` would take), and the rows of `ids` and the live rows
    /// holding `pathKeys`: one statement.
    ///
    /// Each id and each path key is looked up on its own in the unique index that holds it,
    /// whatever the planner believes of the user. Asked as one filter (`n.id = ANY(…) OR
    /// n.path_key = ANY(…)`), a user created since `notes` was last analyzed looked to the
    /// planner like a user with one note, and some connections then read every one of the
    /// user's notes, by revision, for every batch: 2–7 ms a batch once the user had 10,000,
    /// a quarter to a third of PostgreSQL's work in a new account's first upload (measured).
    /// A row found both ways comes twice and is learned once.
    init(_ db: some SQLConnection, userID: Int64, ids: [NoteID], pathKeys: [String]) throws {
        self.userID = userID
        var counter: Int64?
        var found: [Row] = []
        let columns = "n.path_key, " + NoteRecord.columns(of: "n", withContent: false)
        try db.each("""
            SELECT u.last_rev, \(columns)
            FROM users u LEFT JOIN LATERAL (
                SELECT \(columns) FROM unnest(?::text[]) AS k(id) JOIN notes n ON n.user_id = u.id AND n.id = k.id
                UNION ALL
                SELECT \(columns) FROM unnest(?::text[]) AS k(path_key)
                    JOIN notes n ON n.user_id = u.id AND n.deleted = 0 AND n.path_key = k.path_key
            ) n ON true
            WHERE u.id = ?
            FOR UPDATE OF u
            """, [PostgresBinaryArray(ids.map(\.value)).value, PostgresBinaryArray(pathKeys).value, userID]) { row in
            counter = row.int64(0)
            if !row.isNull(2) { found.append(try Self.row(row, first: 1)) }
            return true
        }
        guard let counter else { throw DatabaseError(code: 1, message: "the user of a note write does not exist") }
        lastRevision = counter
        absent = Set(ids)
        loadedKeys = Set(pathKeys)
        for row in found { learn(row) }
    }

    /// The row of `id`, or nil when there is none.
    func row(_ id: NoteID, in db: some SQLConnection) throws -> Row? {
        if let row = rows[id] { return row }
        if absent.contains(id) { return nil }
        let read = try db.first("SELECT path_key, \(NoteRecord.columns) FROM notes WHERE user_id = ? AND id = ?", [userID, id.value]) {
            try Self.row($0, first: 0)
        }
        guard let read else {
            absent.insert(id)
            return nil
        }
        learn(read)
        return read
    }

    /// The id of the live row holding `pathKey`, or nil when none does.
    func liveHolder(of pathKey: String, in db: some SQLConnection) throws -> NoteID? {
        if !loadedKeys.contains(pathKey) {
            let read = try db.query("SELECT path_key, \(NoteRecord.columns) FROM notes WHERE user_id = ? AND path_key = ? AND deleted = 0",
                                    [userID, pathKey]) { try Self.row($0, first: 0) }
            for row in read { learn(row) }
            loadedKeys.insert(pathKey)
        }
        return liveHolders[pathKey]
    }

    /// The entry `id` with its content, for a stale answer: as the batch wrote it, or as stored.
    func current(_ id: NoteID, in db: some SQLConnection) throws -> NoteRecord? {
        guard let row = rows[id], let content = row.content else {
            return try NoteStore.load(db, userID: userID, id: id, withContent: true)
        }
        let note = row.record
        return NoteRecord(id: note.id, path: note.path, content: content, hash: note.hash, size: note.size, rev: note.rev,
                          createdAt: note.createdAt, updatedAt: note.updatedAt, deleted: note.deleted, kind: note.kind, mediaType: note.mediaType)
    }

    /// The next revision number of the user's, for the write about to be kept.
    func nextRevision() -> Int64 {
        lastRevision += 1
        return lastRevision
    }

    /// Keeps the write that gives `note` (live, or a tombstone) its new state, holding `pathKey`.
    /// A write to a note the last statement writes already, or to a path key one of its writes
    /// gave up, goes into a new statement (see `NoteBatch`).
    func keep(_ note: NoteRecord, pathKey: String, content: String) {
        let previous = rows[note.id]
        let freed = previous.flatMap { !$0.record.deleted && ($0.pathKey != pathKey || note.deleted) ? $0.pathKey : nil }
        let taken = note.deleted ? nil : pathKey
        if idsInStatement.contains(note.id) || taken.map(keysFreedInStatement.contains) == true {
            statements.append([])
            idsInStatement = []
            keysFreedInStatement = []
        }
        statements[statements.count - 1].append(Write(note: note, pathKey: pathKey, content: content, replacing: previous != nil))
        idsInStatement.insert(note.id)
        if let freed {
            keysFreedInStatement.insert(freed)
            if liveHolders[freed] == note.id { liveHolders[freed] = nil }
        }
        if let taken { liveHolders[taken] = note.id }
        rows[note.id] = Row(record: note, pathKey: pathKey, content: content)
        absent.remove(note.id)
    }

    /// Writes the kept writes, one statement per group, in order.
    func write(_ db: some SQLConnection, userID: Int64, device: String?) throws {
        for writes in statements where !writes.isEmpty {
            try Self.write(writes, db, userID: userID, device: device)
        }
    }

    /// One statement: every column of `writes` as an array, `unnest`ed into rows; the notes
    /// inserted or updated (their renderings forgotten), a revision appended for each, the
    /// user's counter set to the last of their revision numbers.
    ///
    /// The revisions are appended without their text (NULL: the note's current text, schema
    /// version 17); each replaced note's previous latest revision is first given the text it
    /// stood for (`NoteStore.keepText`), read from the note's row as the statement found it:
    /// every part of a statement sees one snapshot, and a statement writes one note at most once.
    /// That update looks the revisions up by the replaced notes' ids and each one's text by a
    /// subquery on the note's key, not by a join the planner orders: for a user whose rows the
    /// table's statistics do not know yet (a new account's upload), it joined all of the user's
    /// revisions to all of the user's notes in every statement (10 s and more per batch, measured).
    /// The subquery names the note by both of its unique keys (`id`, and `rev`: the revision
    /// without text is the note's latest), so whichever index the planner takes finds one row.
    /// The revisions are named by user through a subquery (`(SELECT ?1)`), whose value the
    /// planner does not see: with the user's id itself, a user newer than the statistics looked
    /// like one with no revisions, and the plan walked all of the user's revisions, the ids a
    /// filter (7.5 ms a statement at 10,000 notes, against 1.1 ms by the ids: EXPLAIN ANALYZE
    /// after a new account's upload); unseen, the user looks like an average one, and the ids
    /// go into the index lookup. The replaced notes' rows (their renderings forgotten, their
    /// new state written) are named the same way, for the same trap: for such a user the plans
    /// joined the batch to all of the user's notes by hashing (EXPLAIN, not measured under load).
    private static func write(_ writes: [Write], _ db: some SQLConnection, userID: Int64, device: String?) throws {
        var ids = PostgresBinaryArray(of: .text), paths = PostgresBinaryArray(of: .text), pathKeys = PostgresBinaryArray(of: .text)
        var contents = PostgresBinaryArray(of: .text, reservingCapacity: writes.reduce(0) { $0 + $1.content.utf8.count + 4 })
        var hashes = PostgresBinaryArray(of: .text), sizes = PostgresBinaryArray(of: .int8), revisions = PostgresBinaryArray(of: .int8)
        var createdAts = PostgresBinaryArray(of: .int8), updatedAts = PostgresBinaryArray(of: .int8), deleted = PostgresBinaryArray(of: .int4)
        var kinds = PostgresBinaryArray(of: .text), mediaTypes = PostgresBinaryArray(of: .text), replacing = PostgresBinaryArray(of: .bool)
        var replaced = PostgresBinaryArray(of: .text)
        for write in writes {
            let note = write.note
            ids.append(note.id.value)
            paths.append(note.path)
            pathKeys.append(write.pathKey)
            contents.append(write.content)
            hashes.append(note.hash)
            sizes.append(Int64(note.size))
            revisions.append(note.rev)
            createdAts.append(note.createdAt)
            updatedAts.append(note.updatedAt)
            deleted.append(note.deleted ? 1 : 0)
            kinds.append(note.kind.rawValue)
            mediaTypes.append(note.mediaType)
            replacing.append(write.replacing)
            if write.replacing { replaced.append(note.id.value) }
        }
        let lastRevision = writes[writes.count - 1].note.rev
        try db.run("""
            WITH w AS (
                SELECT * FROM unnest(?4::text[], ?5::text[], ?6::text[], ?7::text[], ?8::text[], ?9::bigint[], ?10::bigint[], ?11::bigint[],
                                     ?12::bigint[], ?13::integer[], ?14::text[], ?15::text[], ?16::boolean[])
                    AS w(id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind, media_type, replacing)
            ),
            counter AS (UPDATE users SET last_rev = ?3::bigint WHERE id = ?1::bigint),
            kept AS (
                UPDATE revisions r SET content = (SELECT n.content FROM notes n WHERE n.user_id = ?1::bigint AND n.id = r.note_id AND n.rev = r.rev)
                WHERE r.user_id = (SELECT ?1::bigint) AND r.note_id = ANY(?17::text[]) AND r.content IS NULL
            ),
            forgotten AS (
                DELETE FROM rendered_html r USING notes n, w
                WHERE w.replacing AND n.user_id = (SELECT ?1::bigint) AND n.id = w.id AND r.nid = n.nid
            ),
            inserted AS (
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind, media_type)
                SELECT ?1::bigint, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted, kind, media_type
                FROM w WHERE NOT replacing
            ),
            updated AS (
                UPDATE notes n SET path = w.path, path_key = w.path_key, content = w.content, hash = w.hash, size = w.size, rev = w.rev,
                    created_at = w.created_at, updated_at = w.updated_at, deleted = w.deleted, media_type = w.media_type
                FROM w WHERE w.replacing AND n.user_id = (SELECT ?1::bigint) AND n.id = w.id
            )
            INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device, kind, media_type)
            SELECT ?1::bigint, id, rev, path, NULL, hash, size, deleted, updated_at, ?2::text, kind, media_type FROM w
            """, userID, device, lastRevision, ids.value, paths.value, pathKeys.value, contents.value, hashes.value, sizes.value, revisions.value,
            createdAts.value, updatedAts.value, deleted.value, kinds.value, mediaTypes.value, replacing.value, replaced.value)
    }

    /// The batch's state wins over the database's: a row it knows is not learned again.
    private func learn(_ row: Row) {
        let id = row.record.id
        guard rows[id] == nil else { return }
        rows[id] = row
        absent.remove(id)
        if !row.record.deleted { liveHolders[row.pathKey] = id }
    }

    /// A row selected as `path_key` then `NoteRecord.columns`, from column `first`.
    private static func row(_ row: some SQLRow, first: Int) throws -> Row {
        Row(record: try NoteRecord(row: row, withContent: false, first: first + 1), pathKey: row.string(first), content: nil)
    }
}
