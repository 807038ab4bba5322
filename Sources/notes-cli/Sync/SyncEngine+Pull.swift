import NotesCore

/// Pulling: the changes feed, page by page, each page applied and then recorded with its cursor.
extension SyncEngine {
    /// Pulls, starting again from the beginning when the server no longer knows the cursor.
    func pullResyncing(metadataFirst: Bool) async throws {
        do {
            try await pull(from: try index.cursor(), metadataFirst: metadataFirst)
        } catch SyncRemoteError.resyncRequired {
            report.warnings.append("the server asked for a full resync (this folder had not synced for a long time)")
            seenInFeed = []
            defer { seenInFeed = nil }
            let end = try await pull(from: nil, metadataFirst: false)
            if end.complete, let cursor = end.cursor {
                try forgetPurged()
                // Stored only now: if the guard below stops the sync, the next one resyncs again.
                if !options.dryRun { try index.commit([], cursor: cursor) }
            }
        }
    }

    /// After a complete resync, a tracked note the feed never mentioned was deleted on the server
    /// so long ago that even its tombstone is gone: delete a clean file as for any remote delete;
    /// an edited one is kept and created again under the same id (an edit beats a delete).
    private func forgetPurged() throws {
        guard let seen = seenInFeed, !options.dryRun else { return }
        let purged = snapshot.tracked.values.filter { !seen.contains($0.row.base.id) && $0.row.base.rev > 0 && $0.local == .clean }
        if !options.allowMassDelete && SyncPlanner.isMassDelete(deleting: purged.count, of: confirmedCount) {
            throw CLIError.failure("""
                this sync would delete \(purged.count) of \(confirmedCount) notes in \(folder.root) because the server deleted \
                them long ago; nothing was deleted. If you meant it, run again with --allow-mass-delete
                """)
        }
        var changes: [IndexChange] = []
        for (id, var note) in snapshot.tracked where !seen.contains(id) && note.row.base.rev > 0 && !note.frozen {
            _ = revealsHiddenEdit(&note)
            switch note.local {
            case .clean:
                if let disk = note.diskPath, let stat = note.stat, try !files.remove(disk, expecting: stat) { continue }
                report.add(.deleted, note.row.base.path)
                untrack(id, changes: &changes)
            case .missing:
                untrack(id, changes: &changes)
            case .changed:
                note.row.base.rev = 0
                note.row.stat = .unknown
                track(note, changes: &changes)
            }
        }
        files.flush()
        try index.commit(changes)
    }

    /// Applies every page after `start`. The cursor is stored only after a page is applied in
    /// full; a page with a note that changed here during the sync stops the pull without
    /// advancing, so the next sync sees that page again (DESIGN 4.7, 4.10).
    /// - Parameter metadataFirst: ask for metadata first and fetch content only when a page holds
    ///   something new (after an upload, the feed mostly echoes this folder's own writes).
    /// During a full resync (`seenInFeed` set) the cursor is not stored; the caller stores it.
    /// - Returns: whether the feed was applied to its end, and the cursor reached.
    @discardableResult
    private func pull(from start: String?, metadataFirst: Bool) async throws -> (complete: Bool, cursor: String?) {
        let storesCursor = seenInFeed == nil
        var cursor = start
        var first = true
        var applied = 0
        while true {
            var page: ChangesPage
            if metadataFirst || options.dryRun {
                page = try await remote.changes(since: cursor, limit: options.pageSize, includeContent: false)
                report.changesRequests += 1
                if !options.dryRun && !page.changes.allSatisfy(isKnown) {
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
            var changes: [IndexChange] = []
            var complete = true
            for note in page.changes {
                if try await applyRemote(note, into: &changes) == false { complete = false }
            }
            applied += page.changes.count
            if !options.dryRun {
                if !changes.isEmpty { files.flush() }
                // A no-op sync writes nothing: the cursor is stored only when it moved.
                try index.commit(changes, cursor: storesCursor && complete && page.cursor != cursor ? page.cursor : nil)
            }
            if page.hasMore || applied > options.pageSize { options.progress?("downloading", applied, 0) }
            guard complete else { return (false, cursor) }
            guard page.hasMore, page.cursor != cursor else { return (true, page.cursor) }
            cursor = page.cursor
        }
    }

    /// Whether a feed entry tells this folder nothing new (its own upload coming back).
    private func isKnown(_ note: NoteResource) -> Bool {
        if let tracked = snapshot.tracked[note.id] { return note.rev <= tracked.row.base.rev }
        return note.deleted
    }

    /// Stops before deleting many local files because they were deleted on the server, unless
    /// `--allow-mass-delete`. Counts over the whole feed (metadata only) when it has more pages.
    private func checkRemoteMassDelete(firstPage: ChangesPage, from start: String?) async throws {
        let total = confirmedCount
        guard !options.allowMassDelete, total > 0 else { return }
        var deleting = countLocalDeletes(firstPage.changes)
        var page = firstPage
        while page.hasMore && !SyncPlanner.isMassDelete(deleting: deleting, of: total) {
            page = try await remote.changes(since: page.cursor, limit: 1000, includeContent: false)
            report.changesRequests += 1
            deleting += countLocalDeletes(page.changes)
        }
        guard SyncPlanner.isMassDelete(deleting: deleting, of: total) else { return }
        throw CLIError.failure("""
            this sync would delete \(deleting) of \(total) notes in \(folder.root) because they were deleted on the \
            server; nothing was changed. If you meant it, run again with --allow-mass-delete
            """)
    }

    private func countLocalDeletes(_ notes: [NoteResource]) -> Int {
        notes.filter { note in
            guard note.deleted, let tracked = snapshot.tracked[note.id], tracked.row.base.rev > 0 else { return false }
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
        seenInFeed?.insert(note.id)
        guard let path = try? NotePath(note.path) else {
            report.warnings.append("refused a note from the server with an unsafe path: \(note.path.debugDescription)")
            return true
        }
        var note = note
        note.path = path.value  // NFC on disk and in the index, whatever the server sent
        if var tracked = snapshot.tracked[note.id] {
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
        let occupant = untrackedByKey[key(note.path)]
        let decision = SyncPlanner.reconcileNew(remote: note, occupantHash: occupant?.hash)
        if options.dryRun {
            if decision == .write || decision == .conflictCopyThenWrite { report.add(.downloaded, note.path) }
            if decision == .conflictCopyThenWrite { report.conflicts.append(note.path) }
            return true
        }
        var tracked = TrackedNote(row: IndexRow(base: SyncBase(id: note.id, path: note.path, rev: 0, hash: ""),
                                                diskPath: note.path, stat: .unknown), local: .missing)
        switch decision {
        case .ignore:
            return true
        case .adopt:
            guard let occupant else { return true }
            forgetUntracked(occupant)
            tracked.row = IndexRow(base: base(of: note), diskPath: occupant.diskPath, stat: occupant.stat)
            tracked.local = .clean
            tracked.diskPath = occupant.diskPath
            tracked.stat = occupant.stat
            track(tracked, changes: &changes)
            return true
        case .conflictCopyThenWrite:
            guard let occupant, try moveUntrackedToConflictCopy(occupant) else { return false }
            fallthrough
        case .write:
            switch try place(note, for: &tracked) {
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

    /// Records `tracked` in the snapshot, the lookups and the pending index changes.
    func track(_ tracked: TrackedNote, changes: inout [IndexChange]) {
        snapshot.tracked[tracked.row.base.id] = tracked
        if let disk = tracked.diskPath { trackedByKey[key(disk)] = tracked.row.base.id }
        changes.append(.upsert(tracked.row))
    }

    /// Forgets a tracked note entirely (deleted on both sides, or on the server).
    func untrack(_ id: NoteID, changes: inout [IndexChange]) {
        if let disk = snapshot.tracked[id]?.diskPath, trackedByKey[key(disk)] == id { trackedByKey[key(disk)] = nil }
        snapshot.tracked[id] = nil
        changes.append(.remove(id))
    }

    /// Untracked files live in `untrackedByKey` only once the scan is done: constant-time
    /// updates, however many files a first sync adopts.
    func forgetUntracked(_ file: UntrackedFile) {
        untrackedByKey[key(file.path)] = nil
    }

    func addUntracked(_ file: UntrackedFile) {
        untrackedByKey[key(file.path)] = file
    }
}
