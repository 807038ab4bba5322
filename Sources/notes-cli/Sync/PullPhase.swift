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

/// The pull: the changes feed, page by page, each page's decisions carried out (`ApplyPhase`)
/// and then recorded with its cursor. It owns nothing of the run: what it learns goes into the
/// folder state and the run.report.
struct PullPhase {
    let engine: SyncEngine
    let apply: ApplyPhase

    /// Pulls, starting again from the beginning when the server no longer knows the cursor.
    /// - Parameter firstPage: the first page, asked for ahead (`SyncEngine.run`); used only if
    ///   it was asked from the cursor the index holds now.
    /// - Returns: whether the feed was applied to its end and the index holds the cursor there.
    @discardableResult
    func pullResyncing(metadataFirst: Bool, firstPage: PrefetchedPage? = nil, in run: inout SyncRun) async throws -> Bool {
        do {
            let start = try engine.index.cursor()
            let first = firstPage?.cursor == start ? firstPage?.page : nil
            if first == nil { firstPage?.page.cancel() }
            return try await pull(from: start, metadataFirst: metadataFirst, mode: .incremental, prefetched: first, in: &run).complete
        } catch SyncRemoteError.resyncRequired {
            // The server answers 410 when it purged deletions after the cursor, or when the cursor
            // is ahead of the account (a database restored from a backup): say only what holds for both.
            run.report.warnings.append("""
                the server asked for a full resync (it no longer has every change since this folder last synced); \
                local files it does not have are kept and uploaded, none is deleted
                """)
            let end = try await pull(from: nil, metadataFirst: false, mode: .resync, in: &run)
            guard end.complete, let cursor = end.cursor else { return false }
            try keepNotesUnknownToServer(seen: end.seen, in: &run)
            try engine.commit([], cursor: cursor)  // stored only now: a sync stopped before this resyncs again
            return true
        }
    }

    /// After a complete resync, a tracked note the feed never mentioned is unknown to the server
    /// (deleted so long ago that even its tombstone is gone, or never there). A resync never
    /// deletes a local file (docs/architecture.md, Sync invariants 12): the file is kept and created again under the same
    /// id; if it was a stale copy of a deleted note, the user deletes it once more.
    private func keepNotesUnknownToServer(seen: Set<NoteID>, in run: inout SyncRun) throws {
        var changes: [IndexChange] = []
        for (id, var note) in run.state.tracked where !seen.contains(id) && note.row.base.rev > 0 && !note.frozen {
            switch SyncPlanner.unknownToServer(local: note.local) {
            case .forget:
                run.untrack(id, changes: &changes)
            case .createAgain:
                note.row.base.rev = 0
                note.row.stat = .unknown
                run.track(note, changes: &changes)
            }
        }
        try engine.commit(changes)
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
    private func pull(from start: String?, metadataFirst: Bool, mode: PullMode, prefetched firstPage: Task<ChangesPage, any Error>? = nil,
              in run: inout SyncRun)
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
                page = try await engine.remote.changes(since: cursor, limit: engine.options.pageSize, includeContent: false)
                run.report.changesRequests += 1
                if !page.changes.allSatisfy({ isKnown($0, in: run.state) }) {
                    page = try await engine.remote.changes(since: cursor, limit: engine.options.pageSize, includeContent: true)
                    run.report.changesRequests += 1
                }
            } else {
                page = try await engine.remote.changes(since: cursor, limit: engine.options.pageSize, includeContent: true)
                run.report.changesRequests += 1
            }
            if first {
                first = false
                try await checkRemoteMassDelete(firstPage: page, from: cursor, in: &run)
            }
            if !metadataFirst, page.hasMore, page.cursor != cursor {
                let remote = engine.remote, after = page.cursor, limit = engine.options.pageSize
                prefetched = Task { try await remote.changes(since: after, limit: limit, includeContent: true) }
                run.report.changesRequests += 1
            }
            var changes: [IndexChange] = []
            var complete = true
            for note in page.changes {
                if mode == .resync { seen.insert(note.id) }
                if try await applyRemote(note, into: &changes, in: &run) == false { complete = false }
            }
            applied += page.changes.count
            if !changes.isEmpty { engine.files.flush() }
            // A no-op sync writes nothing: the cursor is stored only when it moved.
            try engine.commit(changes, cursor: storesCursor && complete && page.cursor != cursor ? page.cursor : nil)
            if page.hasMore || applied > engine.options.pageSize { engine.options.progress?("downloading", applied, 0) }
            guard complete else { return (false, cursor, seen) }
            guard page.hasMore, page.cursor != cursor else { return (true, page.cursor, seen) }
            cursor = page.cursor
        }
    }

    /// Whether a feed entry tells this folder nothing new (its own upload coming back).
    private func isKnown(_ note: NoteResource, in state: FolderState) -> Bool {
        if let tracked = state[note.id] { return note.rev <= tracked.row.base.rev }
        return note.deleted
    }

    /// Stops before deleting many local files because they were deleted on the server, unless
    /// `--allow-mass-delete`. Counts over the whole feed (metadata only) when it has more pages,
    /// so the count it reports is the number the sync would delete, not where counting stopped.
    private func checkRemoteMassDelete(firstPage: ChangesPage, from start: String?, in run: inout SyncRun) async throws {
        guard !engine.options.allowMassDelete, run.confirmedCount > 0 else { return }
        var deleting = countLocalDeletes(firstPage.changes, in: run.state)
        var page = firstPage
        while page.hasMore {
            page = try await engine.remote.changes(since: page.cursor, limit: engine.options.pageSize, includeContent: false)
            run.report.changesRequests += 1
            deleting += countLocalDeletes(page.changes, in: run.state)
        }
        try engine.guardMassDelete(.remote, deleting: deleting, in: &run)
    }

    private func countLocalDeletes(_ notes: [NoteResource], in state: FolderState) -> Int {
        notes.filter { note in
            guard note.deleted, let tracked = state[note.id], tracked.row.base.rev > 0 else { return false }
            return SyncPlanner.reconcile(base: tracked.row.base, local: tracked.local, remote: note) == .deleteLocal
        }.count
    }

    /// Applies one server change. Returns false when a local file changed under the sync and the
    /// change must be seen again next time.
    private func applyRemote(_ note: NoteResource, into changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        do {
            return try await applyChange(note, into: &changes, in: &run)
        } catch let error as SyncFileError where error.unsafe {
            // A link or a file where a folder should be: nothing is written through it.
            run.report.warnings.append("\(error)")
            return true
        }
    }

    private func applyChange(_ note: NoteResource, into changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        // The kind follows from the path alone: an entry claiming another (a "note" at x.png, an
        // "attachment" at x.md) is as wrong as an unsafe path, and refused the same way.
        guard let path = try? NotePath(entry: note.path), path.kind == note.kind else {
            run.report.warnings.append("refused a note from the server with an unsafe path: \(note.path.debugDescription)")
            return true
        }
        var note = note
        note.path = path.value  // NFC on disk and in the index, whatever the server sent
        if var tracked = run.state[note.id] {
            if tracked.frozen {
                if note.rev > tracked.row.base.rev {
                    run.report.warnings.append("did not update \(tracked.diskPath ?? note.path): the local file cannot be synced")
                }
                return true
            }
            let local: LocalState = tracked.evicted ? .missing : tracked.local
            let decision = SyncPlanner.reconcile(base: tracked.row.base, local: local, remote: note)
            return try await apply.carryOut(decision, for: &tracked, remote: note, changes: &changes, in: &run)
        }
        return try await applyNew(note, changes: &changes, in: &run)
    }

    /// A note this folder does not track yet.
    private func applyNew(_ note: NoteResource, changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        // `.notesignore` works both ways: a note at an ignored path is not downloaded here.
        if run.ignore.isIgnored(note.path) { return true }
        let occupant = run.state.untrackedRecord(at: note.path)
        let decision = SyncPlanner.reconcileNew(remote: note, occupantHash: occupant?.hash)
        var tracked = TrackedNote(row: IndexRow(base: SyncBase(id: note.id, path: note.path, rev: 0, hash: ""),
                                                diskPath: note.path, stat: .unknown), local: .missing)
        switch decision {
        case .ignore:
            return true
        case .adopt:
            guard let occupant else { return true }
            run.state.forgetUntracked(occupant)
            tracked.row = IndexRow(base: apply.base(of: note), diskPath: occupant.diskPath, stat: occupant.stat)
            tracked.local = .clean
            tracked.diskPath = occupant.diskPath
            tracked.stat = occupant.stat
            run.track(tracked, changes: &changes)
            return true
        case .conflictCopyThenWrite:
            guard let occupant, try apply.moveUntrackedToConflictCopy(occupant, for: note.path, in: &run) else { return false }
            fallthrough
        case .write:
            return try await apply.placeAndTrack(note, for: &tracked, changes: &changes, in: &run)
        }
    }
}
