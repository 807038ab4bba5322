import NotesCore

/// The checks every entry write and delete passes before it writes, in one place: the write of
/// one entry (`NoteStore.put`, `delete`) and a PostgreSQL batch's deferred writes (`NoteBatch`)
/// decide alike, so a batch answers each operation as a request alone would.
extension NoteStore {
    /// What a preconditioned entry write does once its checks passed.
    enum EntryWrite {
        /// Nothing to write: a retried create, or a change to what the entry already is.
        case unchanged(NoteRecord)
        /// Write the entry; `created` when no live entry had the id (a new one, or a tombstone's return).
        case write(created: Bool)
    }

    /// The checks of an entry write, in the order a request alone meets them, against the
    /// entry's current row `existing` and whether another live entry holds the path's key
    /// (`clash`); `current` loads the entry with its content for a stale answer. Shared by the
    /// write of one entry and a PostgreSQL batch's writes (`NoteBatch`), so both refuse alike.
    static func entryWrite(existing: NoteRecord?, clash: Bool, path: NotePath, kind: EntryKind, hash: String,
                           precondition: WritePrecondition, current: () throws -> NoteRecord?) throws -> EntryWrite {
        if let existing, existing.kind != kind { throw NoteStoreError.kindMismatch(existing: existing.kind) }
        switch precondition {
        case .absent:
            if let existing, !existing.deleted {
                if existing.path == path.value && existing.hash == hash { return .unchanged(existing) }  // a retried create
                throw StaleNoteError(current: try current(), message: "A note with this id already exists.")
            }
        case .revision(let rev):
            guard let existing else { throw NoteStoreError.notFound }
            guard existing.rev == rev else {
                throw StaleNoteError(current: try current(), message: "The note changed since revision \(rev); it is now at \(existing.rev).")
            }
            if !existing.deleted && existing.path == path.value && existing.hash == hash { return .unchanged(existing) }
        }
        // Spoofable names are refused for new paths only: a note keeps the path it has.
        if existing?.path != path.value, let problem = path.newNoteProblem { throw problem }
        if clash { throw NoteStoreError.pathTaken(path.value) }
        return .write(created: existing == nil || existing?.deleted == true)
    }

    /// The creation time an entry written at `now` keeps: its own while it is live, `now` for a new one or a tombstone's return.
    static func createdAt(keptFrom existing: NoteRecord?, now: Int64) -> Int64 {
        (existing?.deleted == false ? existing?.createdAt : nil) ?? now
    }

    /// The checks of a delete at revision `ifMatch` against the entry's current row; returns
    /// that row (a tombstone already needs no write). `current` as in `entryWrite`.
    static func deletable(existing: NoteRecord?, ifMatch: Int64, current: () throws -> NoteRecord?) throws -> NoteRecord {
        guard let existing else { throw NoteStoreError.notFound }
        guard existing.rev == ifMatch else {
            throw StaleNoteError(current: try current(), message: "The note changed since revision \(ifMatch); it is now at \(existing.rev).")
        }
        return existing
    }
}
