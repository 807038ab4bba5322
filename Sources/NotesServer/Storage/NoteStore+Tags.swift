import NotesCore

/// The tags of a user's notes, kept in `note_tags` (schema version 23) for `NoteTags`.
///
/// A write renders nothing: the notes changed since the user's tags were last read (a revision
/// past the user's `tag_marks` row) are read here, before any tag answer, so a tag page or a
/// `tag:` search is right at once after a save, rename, delete or restore, and each revision is
/// rendered for its tags about once. A user without a mark, or with one another rendering made
/// (the server's flavour or `NoteRendering.version` changed), has every note read again.
extension NoteStore {
    /// Notes read for their tags per transaction: a batch holds the writer for a few tens of
    /// milliseconds at most, as the search indexer's does.
    static let tagBatchSize = 500

    /// `userID`'s live notes that carry a tag, each with its tags as the note spells them, the
    /// most recently changed first; every change is read first (`catchUpTags`).
    func taggedNotes(userID: Int64) throws -> [(note: NoteRecord, tags: [String])] {
        try catchUpTags(userID: userID)
        var tagged: [(note: NoteRecord, tags: [String])] = []
        var index: [NoteID: Int] = [:]
        try database.read { db in
            try db.each("""
                SELECT t.tag, \(NoteRecord.columns(of: "n", withContent: false)) FROM note_tags t JOIN notes n ON n.nid = t.nid
                WHERE t.user_id = ? AND n.deleted = 0 ORDER BY n.updated_at DESC, n.path, t.tag_key
                """, [userID]) { row in
                let tag = row.string(0)
                let note = try NoteRecord(row: row, withContent: false, first: 1)
                if let at = index[note.id] {
                    tagged[at].tags.append(tag)
                } else {
                    index[note.id] = tagged.count
                    tagged.append((note, [tag]))
                }
                return true
            }
        }
        return tagged
    }

    /// Reads the tags of every note of `userID` changed since the user's mark, in batches of
    /// `tagBatchSize`, each in one transaction with the mark it moves: a crash leaves each note's
    /// tags either read or still to read.
    func catchUpTags(userID: Int64) throws {
        let renderer = Int64(NoteRendering.keptVersion(of: rendering.flavour))
        let behind = try database.read { db in
            let mark = try Self.tagMark(db, userID: userID, renderer: renderer)
            guard let mark else { return true }
            return try db.first("SELECT 1 FROM notes WHERE user_id = ? AND rev > ? LIMIT 1", [userID, mark]) { _ in true } != nil
        }
        guard behind else { return }
        while try database.write(serializedBy: Self.writeLockKey(of: userID), { db in try readTags(db, userID: userID, renderer: renderer) }) {}
    }

    /// Reads one batch of `userID`'s changed notes for their tags and moves the mark past them;
    /// returns whether more may be left.
    private func readTags(_ db: some SQLConnection, userID: Int64, renderer: Int64) throws -> Bool {
        let mark: Int64
        if let kept = try Self.tagMark(db, userID: userID, renderer: renderer) {
            mark = kept
        } else {
            try db.run("DELETE FROM note_tags WHERE user_id = ?", userID)
            mark = 0
        }
        let changed = try db.query("""
            SELECT nid, rev, CASE WHEN deleted = 0 AND kind = 'note' THEN content END FROM notes
            WHERE user_id = ? AND rev > ? ORDER BY rev LIMIT ?
            """, [userID, mark, Self.tagBatchSize]) { row in
            (nid: row.int64(0), rev: row.int64(1), content: row.optionalString(2))
        }
        if !changed.isEmpty {
            _ = try db.query("DELETE FROM note_tags WHERE nid IN (\(Self.placeholders(changed.count)))", changed.map(\.nid)) { _ in () }
        }
        var rows: [[any SQLBindable]] = []
        for note in changed {
            guard let content = note.content else { continue }
            rows += try rendering.tags(of: content).map { [note.nid, userID, $0.lowercased(), $0] }
        }
        for start in stride(from: 0, to: rows.count, by: Self.tagRowsPerInsert) {
            let chunk = rows[start..<min(start + Self.tagRowsPerInsert, rows.count)]
            _ = try db.query("""
                INSERT INTO note_tags (nid, user_id, tag_key, tag) VALUES \(Array(repeating: "(?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))
                ON CONFLICT (nid, tag_key) DO NOTHING
                """, chunk.flatMap { $0 }) { _ in () }
        }
        try db.run("""
            INSERT INTO tag_marks (user_id, rev, renderer) VALUES (?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET rev = excluded.rev, renderer = excluded.renderer
            """, userID, changed.last?.rev ?? mark, renderer)
        return changed.count == Self.tagBatchSize
    }

    /// Tag rows per `INSERT`: four values each, far below either backend's bound on parameters.
    private static let tagRowsPerInsert = 200

    /// `?, ?, …`: `count` placeholders.
    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The revision up to which `userID`'s tags were read by `renderer`; nil when never, or by
    /// another rendering.
    private static func tagMark(_ db: some SQLConnection, userID: Int64, renderer: Int64) throws -> Int64? {
        try db.first("SELECT rev, renderer FROM tag_marks WHERE user_id = ?", [userID]) { row in
            row.int64(1) == renderer ? row.int64(0) : nil
        } ?? nil
    }
}
