import NotesCore

/// Saving a note's text written from an older revision, as the web editor and the task
/// toggle do: the form carries the revision it was loaded at (the web's `If-Match`), and when
/// the note changed since, the text is merged into the current one by the three-way merge sync
/// uses (`ThreeWayMerge`, against that revision), so a change made elsewhere is never
/// overwritten unseen. Only overlapping changes are not saved.
struct MergingSave {
    let notes: NoteStore

    enum Outcome {
        /// Saved; `merged` when changes made elsewhere were merged in.
        case saved(merged: Bool)
        /// Not saved: the changes overlap those made elsewhere, or the note was deleted
        /// meanwhile. `current` is the note as it is.
        case overlapping(current: NoteRecord)
        /// Not saved: the text is larger than the server's limit.
        case tooLarge(limit: Int, current: NoteRecord)
    }

    /// Saves `text`, written from revision `base`, over `current` (the note as last read).
    /// A write landing between the read and this save is merged in as well, a few times at most.
    /// - Throws: `HTTPError` 404 when the note is gone altogether; storage errors.
    func save(_ text: String, from base: Int64, over current: NoteRecord, session: BrowserSession) throws -> Outcome {
        var current = current
        for _ in 0..<3 {
            var content = text
            if current.rev != base {
                guard let merged = try merged(text, base: base, into: current, userID: session.userID) else {
                    return .overlapping(current: current)
                }
                content = merged
            }
            do {
                _ = try notes.put(userID: session.userID, id: current.id, path: try NotePath(current.path), content: content,
                                  precondition: .revision(current.rev), device: session.deviceLabel, author: session.memberID)
            } catch let stale as StaleNoteError {
                guard let now = stale.current else { throw HTTPError.notFound("There is no such note.") }
                current = now
                continue
            } catch NoteStoreError.tooLarge(let limit, _) {
                return .tooLarge(limit: limit, current: current)
            }
            return .saved(merged: current.rev != base)
        }
        return .overlapping(current: current)
    }

    /// `text` (written from revision `base`) merged into the current text, or nil when the
    /// changes overlap, the note is deleted, or the base revision is not in the history.
    private func merged(_ text: String, base: Int64, into current: NoteRecord, userID: Int64) throws -> String? {
        guard !current.deleted, let saved = current.content,
              let original = try notes.revision(userID: userID, id: current.id, rev: base), !original.deleted,
              original.kind == .note, let baseText = original.content else { return nil }
        return ThreeWayMerge.merge(base: baseText, ours: text, theirs: saved)
    }
}
