import NotesCore

/// How a pull walks the changes feed.
enum PullMode: Equatable {
    /// From the stored cursor: each page's cursor is stored once the page is applied.
    case incremental
    /// From the beginning, after the server refused the cursor (410): no cursor is stored
    /// until the whole feed is applied, and the notes the feed mentions are collected so the
    /// ones it never mentions can be kept (docs/architecture.md, Sync invariants 12).
    case resync
}

/// The first changes page, asked for before the scan so the server answers while the folder is
/// scanned, with the cursor it was asked from.
struct PrefetchedPage {
    var cursor: String?
    var page: Task<ChangesPage, any Error>
}

/// Pulling: the changes feed, page by page, each page applied and then recorded with its cursor.
extension SyncEngine {
    /// Pulls, starting again from the beginning when the server no longer knows the cursor.
    /// - Parameter firstPage: the first page, asked for ahead (`SyncEngine.run`); used only if
    ///   it was asked from the cursor the index holds now.
    /// - Returns: whether the feed was applied to its end and the index holds the cursor there.
    @discardableResult
    func pullResyncing(metadataFirst: Bool, firstPage: PrefetchedPage? = nil) async throws -> Bool {
        do {
            let start = try index.cursor()
            let first = firstPage?.cursor == start ? firstPage?.page : nil
            if first == nil { firstPage?.page.cancel() }
            return try await pull(from: start, metadataFirst: metadataFirst, mode: .incremental, prefetched: first).complete
        } catch SyncRemoteError.resyncRequired {
            // The server answers 410 when it purged deletions after the cursor, or when the cursor
            // is ahead of the account (a database restored from a backup): say only what holds for both.
            report.warnings.append("""
                the server asked for a full resync (it no longer has every change since this folder last synced); \
                local files it does not have are kept and uploaded, none is deleted
                """)
            let end = try await pull(from: nil, metadataFirst: false, mode: .resync)
            guard end.complete, let cursor = end.cursor else { return false }
            try keepNotesUnknownToServer(seen: end.seen)
            try commit([], cursor: cursor)  // stored only now: a sync stopped before this resyncs again
            return true
        }
    }

    /// After a complete resync, a tracked note the feed never mentioned is unknown to the server
    /// (deleted so long ago that even its tombstone is gone, or never there). A resync never
    /// deletes a local file (docs/architecture.md, Sync invariants 12): the file is kept and created again under the same
    /// id; if it was a stale copy of a deleted note, the user deletes it once more.
    private func keepNotesUnknownToServer(seen: Set<NoteID>) throws {
        var changes: [IndexChange] = []
        for (id, var note) in state.tracked where !seen.contains(id) && note.row.base.rev > 0 && !note.frozen {
            switch SyncPlanner.unknownToServer(local: note.local) {
            case .forget:
                untrack(id, changes: &changes)
            case .createAgain:
                note.row.base.rev = 0
                note.row.stat = .unknown
                track(note, changes: &changes)
            }
        }
        try commit(changes)
    }

    /// Applies every page after `start`. The cursor is stored only after a page is applied in
    /// full; a page with a note that changed here during the sync stops the pull without
    /// advancing, so the next sync sees that page again (docs/architecture.md, Sync invariants 7, 10).
    /// - Parameter metadataFirst: ask for metadata first and fetch content only when a page holds
    ///   something new (after an upload, the feed mostly echoes this folder's own writes).
    /// - Parameter mode: in a `.resync` the cursor is not stored; the caller stores it.
    /// - Returns: whether the feed was applied to its end, the cursor reached, and (in a
    ///   `.resync`) every note id the feed mentioned.
    /// - Parameter prefetched: the page after `start`, already asked for (with content).
    @discardableResult
    private func pull(from start: String?, metadataFirst: Bool, mode: PullMode, prefetched firstPage: Task<ChangesPage, any Error>? = nil)
        async throws -> (complete: Bool, cursor: String?, seen: Set<NoteID>) {
        let storesCursor = mode == .incremental
        var seen = Set<NoteID>()
        var cursor = start
        var first = true
        var applied = 0
        // The next page, asked for while this one is applied, so the server reads and encodes
        // it meanwhile (a clone of thousands of notes waited for each page in turn).
        var prefetched = firstPage
        defer { prefetched?.cancel() }
        while true {
            var page: ChangesPage
            if let next = prefetched {
                prefetched = nil
                page = try await next.value
            } else if metadataFirst {
                page = try await remote.changes(since: cursor, limit: options.pageSize, includeContent: false)
                report.changesRequests += 1
                if !page.changes.allSatisfy(isKnown) {
                    page = try await remote.changes(since: cursor, limit: options.pageSize, includeContent: true)
                    report.changesRequests += 1
                }
            } else {
                page = try await remote.changes(since: cursor, limit: options.pageSize, includeContent: true)
                report.changesRequests += 1
            }
            if first {
                first = false
                try await checkRemoteMassDelete(firstPage: page, from: cursor)
            }
            if !metadataFirst, page.hasMore, page.cursor != cursor {
                let remote = self.remote, after = page.cursor, limit = options.pageSize
                prefetched = Task { try await remote.changes(since: after, limit: limit, includeContent: true) }
                report.changesRequests += 1
            }
            var changes: [IndexChange] = []
            var complete = true
            for note in page.changes {
                if mode == .resync { seen.insert(note.id) }
                if try await applyRemote(note, into: &changes) == false { complete = false }
            }
            applied += page.changes.count
            if !changes.isEmpty { files.flush() }
            // A no-op sync writes nothing: the cursor is stored only when it moved.
            try commit(changes, cursor: storesCursor && complete && page.cursor != cursor ? page.cursor : nil)
            if page.hasMore || applied > options.pageSize { options.progress?("downloading", applied, 0) }
            guard complete else { return (false, cursor, seen) }
            guard page.hasMore, page.cursor != cursor else { return (true, page.cursor, seen) }
            cursor = page.cursor
        }
    }

    /// Whether a feed entry tells this folder nothing new (its own upload coming back).
    private func isKnown(_ note: NoteResource) -> Bool {
        if let tracked = state[note.id] { return note.rev <= tracked.row.base.rev }
        return note.deleted
    }

    /// Stops before deleting many local files because they were deleted on the server, unless
    /// `--allow-mass-delete`. Counts over the whole feed (metadata only) when it has more pages,
    /// so the count it reports is the number the sync would delete, not where counting stopped.
    private func checkRemoteMassDelete(firstPage: ChangesPage, from start: String?) async throws {
        guard !options.allowMassDelete, confirmedCount > 0 else { return }
        var deleting = countLocalDeletes(firstPage.changes)
        var page = firstPage
        while page.hasMore {
            page = try await remote.changes(since: page.cursor, limit: options.pageSize, includeContent: false)
            report.changesRequests += 1
            deleting += countLocalDeletes(page.changes)
        }
        try guardMassDelete(.remote, deleting: deleting)
    }

    private func countLocalDeletes(_ notes: [NoteResource]) -> Int {
        notes.filter { note in
            guard note.deleted, let tracked = state[note.id], tracked.row.base.rev > 0 else { return false }
            return SyncPlanner.reconcile(base: tracked.row.base, local: tracked.local, remote: note) == .deleteLocal
        }.count
    }

    /// Applies one server change. Returns false when a local file changed under the sync and the
    /// change must be seen again next time.
    func applyRemote(_ note: NoteResource, into changes: inout [IndexChange]) async throws -> Bool {
        do {
            return try await applyChange(note, into: &changes)
        } catch let error as SyncFileError where error.unsafe {
            // A link or a file where a folder should be: nothing is written through it.
            report.warnings.append("\(error)")
            return true
        }
    }

    private func applyChange(_ note: NoteResource, into changes: inout [IndexChange]) async throws -> Bool {
        // The kind follows from the path alone: an entry claiming another (a "note" at x.png, an
        // "attachment" at x.md) is as wrong as an unsafe path, and refused the same way.
        guard let path = try? NotePath(entry: note.path), path.kind == note.kind else {
            report.warnings.append("refused a note from the server with an unsafe path: \(note.path.debugDescription)")
            return true
        }
        var note = note
        note.path = path.value  // NFC on disk and in the index, whatever the server sent
        if var tracked = state[note.id] {
            if tracked.frozen {
                if note.rev > tracked.row.base.rev {
                    report.warnings.append("did not update \(tracked.diskPath ?? note.path): the local file cannot be synced")
                }
                return true
            }
            let local: LocalState = tracked.evicted ? .missing : tracked.local
            let decision = SyncPlanner.reconcile(base: tracked.row.base, local: local, remote: note)
            return try await carryOut(decision, for: &tracked, remote: note, changes: &changes)
        }
        return try await applyNew(note, changes: &changes)
    }

    /// A note this folder does not track yet.
    private func applyNew(_ note: NoteResource, changes: inout [IndexChange]) async throws -> Bool {
        // `.notesignore` works both ways: a note at an ignored path is not downloaded here.
        if ignore.isIgnored(note.path) { return true }
        let occupant = state.untrackedRecord(at: note.path)
        let decision = SyncPlanner.reconcileNew(remote: note, occupantHash: occupant?.hash)
        var tracked = TrackedNote(row: IndexRow(base: SyncBase(id: note.id, path: note.path, rev: 0, hash: ""),
                                                diskPath: note.path, stat: .unknown), local: .missing)
        switch decision {
        case .ignore:
            return true
        case .adopt:
            guard let occupant else { return true }
            state.forgetUntracked(occupant)
            tracked.row = IndexRow(base: base(of: note), diskPath: occupant.diskPath, stat: occupant.stat)
            tracked.local = .clean
            tracked.diskPath = occupant.diskPath
            tracked.stat = occupant.stat
            track(tracked, changes: &changes)
            return true
        case .conflictCopyThenWrite:
            guard let occupant, try moveUntrackedToConflictCopy(occupant, for: note.path) else { return false }
            fallthrough
        case .write:
            switch try await place(note, for: &tracked) {
            case .changedUnderneath: return false
            case .refused: return true
            case .placed:
                report.add(.downloaded, note.path)
                track(tracked, changes: &changes)
                return true
            }
        }
    }

    /// The base a server note becomes once this folder holds exactly it.
    func base(of note: NoteResource) -> SyncBase {
        SyncBase(id: note.id, path: note.path, rev: note.rev, hash: note.hash)
    }

    /// Records `tracked` in the folder state and the pending index changes.
    func track(_ tracked: TrackedNote, changes: inout [IndexChange]) {
        state.track(tracked)
        changes.append(.upsert(tracked.row))
    }

    /// Forgets a tracked note entirely (deleted on both sides, or on the server).
    func untrack(_ id: NoteID, changes: inout [IndexChange]) {
        state.untrack(id)
        changes.append(.remove(id))
    }
}
