import NotesCore

/// Carrying out the planner's decisions on the folder, for the pull (each feed entry) and the
/// push (a stale revision answered by the server). It owns nothing of the run: every change
/// goes into the run's folder state and report.
///
/// An index row's file metadata is recorded only when the file holds exactly the row's base;
/// otherwise it is `unknown`, so the next scan reads the file instead of trusting metadata.
struct ApplyPhase {
    let engine: SyncEngine

    /// What became of an attempt to put a note's content in place.
    enum PlaceOutcome {
        case placed
        /// A file changed since the scan: nothing replaced, try again next sync.
        case changedUnderneath
        /// The path cannot be written safely (a link or folder in the way): left alone.
        case refused
    }

    /// Carries out `decision` for `tracked`; false when a file changed under the sync.
    func carryOut(_ decision: RemoteDecision, for tracked: inout TrackedNote, remote note: NoteResource,
                  changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        if decision == .takeRemote || decision == .deleteLocal, revealsHiddenEdit(&tracked) {
            let decision = SyncPlanner.reconcile(base: tracked.row.base, local: tracked.local, remote: note)
            return try await carryOut(decision, for: &tracked, remote: note, changes: &changes, in: &run)
        }
        switch decision {
        case .upToDate:
            return true
        case .record:
            tracked.row.base = base(of: note)
            if let disk = tracked.diskPath, let stat = tracked.stat {
                tracked.row.diskPath = disk
                tracked.row.stat = stat
            }
            tracked.local = .clean
            tracked.evicted = false
            run.track(tracked, changes: &changes)
            return true
        case .takeRemote:
            let onlyMoved = note.hash == tracked.row.base.hash && tracked.local == .clean
            return try await placeAndTrack(note, for: &tracked, as: onlyMoved ? .renamed : .downloaded, changes: &changes, in: &run)
        case .deleteLocal:
            if let disk = tracked.diskPath, let stat = tracked.stat {
                guard try engine.files.remove(disk, expecting: stat) else { return false }
            }
            run.report.add(.deleted, tracked.row.base.path)
            run.untrack(tracked.row.base.id, changes: &changes)
            return true
        case .forget:
            run.untrack(tracked.row.base.id, changes: &changes)
            return true
        case .keepLocal(let path):
            return try keepLocal(at: path, for: &tracked, remote: note, changes: &changes, in: &run)
        case .merge(let path):
            return try await merge(at: path, for: &tracked, remote: note, changes: &changes, in: &run)
        }
    }

    /// Rebases the local edit onto the server's revision; it is uploaded by the push.
    private func keepLocal(at path: String, for tracked: inout TrackedNote, remote note: NoteResource,
                           changes: inout [IndexChange], in run: inout SyncRun) throws -> Bool {
        let hash: String
        switch tracked.local {
        case .changed(_, let localHash): hash = localHash
        default: hash = tracked.row.base.hash
        }
        if let disk = tracked.diskPath, let stat = tracked.stat, run.key(disk) != run.key(path) {
            guard try makeRoom(at: path, for: tracked.row.base.id, in: &run) else { return false }
            guard let moved = try engine.files.move(disk, to: path, expecting: stat) else { return false }
            tracked.diskPath = path
            tracked.stat = moved
        }
        tracked.row.base = base(of: note)
        tracked.row.diskPath = tracked.diskPath ?? tracked.row.diskPath
        tracked.row.stat = .unknown
        tracked.local = .changed(path: path, hash: hash)
        run.track(tracked, changes: &changes)
        return true
    }

    /// Writes the server's content of `note` at its path for `tracked`, replacing the note's own
    /// file (as scanned) and making room at the path.
    func place(_ note: NoteResource, for tracked: inout TrackedNote, in run: inout SyncRun) async throws -> PlaceOutcome {
        let outcome: PlaceOutcome
        if note.kind == .attachment {
            outcome = try await placeContent(.attachment(note), at: note.path, for: &tracked, in: &run)
        } else {
            guard let content = note.content else {
                run.report.warnings.append("the server sent \(note.path) without content; it will be fetched next time")
                return .changedUnderneath
            }
            outcome = try await placeContent(.bytes(Array(content.utf8)), at: note.path, for: &tracked, in: &run)
        }
        if outcome == .placed {
            tracked.row.base = base(of: note)
            tracked.local = .clean
            tracked.evicted = false
        }
        return outcome
    }

    /// Places the server's `note` for `tracked` (`place`) and, once placed, reports it as
    /// `action` and records it; false when a file changed under the sync.
    func placeAndTrack(_ note: NoteResource, for tracked: inout TrackedNote, as action: SyncReport.Action = .downloaded,
                       changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        switch try await place(note, for: &tracked, in: &run) {
        case .changedUnderneath: return false
        case .refused: return true
        case .placed:
            run.report.add(action, note.path)
            run.track(tracked, changes: &changes)
            return true
        }
    }

    /// What `placeContent` writes: a note's bytes at hand, or an attachment downloaded by hash.
    enum PlacedContent {
        case bytes([UInt8])
        case attachment(NoteResource)

        var hash: String {
            switch self {
            case .bytes(let bytes): SHA256.hex(of: bytes)
            case .attachment(let note): note.hash
            }
        }
    }

    /// Writes `content` at `path` as the file of `tracked`; on success updates its disk path,
    /// metadata and row metadata (the caller sets the base).
    func placeContent(_ content: PlacedContent, at path: String, for tracked: inout TrackedNote, in run: inout SyncRun) async throws -> PlaceOutcome {
        let id = tracked.row.base.id
        let targetKey = run.key(path)
        let ownKey = tracked.diskPath.map(run.key)
        var diskTarget = ownKey == targetKey ? (tracked.diskPath ?? path) : path
        let expectation: SafeFiles.Expectation
        if ownKey == targetKey, let stat = tracked.stat { expectation = .file(stat) } else { expectation = .absent }
        var written: FileStat?
        do {
            if ownKey != targetKey, let same = try identicalUntracked(at: path, content, in: run.state) {
                // The bytes are there already: a sync stopped after writing them but before
                // recording them left this file. Adopted, not copied aside as a duplicate.
                run.state.forgetUntracked(same)
                diskTarget = same.diskPath
                written = same.stat
            } else {
                if ownKey != targetKey {
                    guard try makeRoom(at: path, for: id, in: &run) else { return .changedUnderneath }
                }
                switch content {
                case .bytes(let bytes):
                    // Written first and the obstacle looked at only when the write finds the place
                    // taken (it never replaces what it did not expect): a clone's notes land in
                    // free places, and looking first cost two system calls a note.
                    written = try engine.files.write(bytes, to: diskTarget, expecting: expectation)
                    if written == nil, ownKey != targetKey {
                        if let outcome = try clearObstacle(at: diskTarget, for: path, in: &run) { return outcome }
                        written = try engine.files.write(bytes, to: diskTarget, expecting: expectation)
                    }
                case .attachment(let note):
                    // A download is looked ahead of: it is not fetched for a place that is taken.
                    if ownKey != targetKey, let outcome = try clearObstacle(at: diskTarget, for: path, in: &run) { return outcome }
                    written = try await download(note, to: diskTarget, expecting: expectation, in: &run)
                }
            }
        } catch let error as SyncFileError where error.unsafe {
            run.report.warnings.append("\(error)")
            return .refused
        }
        guard let written else { return .changedUnderneath }
        if ownKey != targetKey, let old = tracked.diskPath, let oldStat = tracked.stat {
            // The note moved: its old file goes, unless it was edited meanwhile (then it stays,
            // and the next sync uploads it as a new note: nothing is lost).
            _ = try? engine.files.remove(old, expecting: oldStat)
        }
        tracked.diskPath = diskTarget
        tracked.stat = written
        tracked.row.diskPath = diskTarget
        tracked.row.stat = written
        return .placed
    }

    /// The untracked file at `path` if it holds exactly `content`, unchanged since the scan.
    /// `content` is hashed only when there is such a file (a clone has none: its notes' bytes
    /// were hashed once, checked where they entered the client).
    private func identicalUntracked(at path: String, _ content: PlacedContent, in state: FolderState) throws -> UntrackedFile? {
        guard let file = state.untracked(at: path), file.hash == content.hash,
              try engine.files.occupant(file.diskPath) == .file(file.stat) else { return nil }
        return file
    }

    /// Deals with what is still at `diskTarget` once `makeRoom` is done, before a note is written
    /// there, as `SyncPlanner.clear` decides: nothing to do (`nil`), or the outcome when the note
    /// cannot be written now.
    private func clearObstacle(at diskTarget: String, for path: String, in run: inout SyncRun) throws -> PlaceOutcome? {
        let found = try engine.files.occupant(diskTarget)
        let obstacle: SyncPlanner.Obstacle
        switch found {
        case .none: obstacle = .none
        case .other: obstacle = .notAFile
        case .file(let stat):
            let ignored = run.ignore.isIgnored(path)
            obstacle = .file(ignored: ignored, couldBeNote: !ignored && couldBeNote(diskTarget, stat, limits: run.attachmentLimits, noteLimit: run.noteLimit))
        }
        switch SyncPlanner.clear(obstacle) {
        case .write:
            return nil
        case .leaveAlone:
            run.report.warnings.append(obstacle == .notAFile
                ? "left alone \(path): something that is not a note file is in the way"
                : "left alone \(path): an ignored file is in the way of the server's note")
            return .refused
        case .retryNextSync:
            return .changedUnderneath
        case .moveToConflictCopy:
            guard case .file(let stat) = found else { return .changedUnderneath }
            let copy = try conflictPath(for: path, in: run.state)
            guard try engine.files.move(diskTarget, to: copy, expecting: stat) != nil else { return .changedUnderneath }
            run.report.warnings.append("moved \(path) to \(copy): it cannot be synced (not UTF-8 text, or too large), and the server has a note there")
            try madeConflictCopy(copy, of: path, reason: .unsyncableFile, in: &run)
            return nil
        }
    }

    /// Whether the file at `diskTarget` (as `stat` says) is UTF-8 text within the note limit,
    /// unchanged while read: a note file the scan did not see. An unreadable file is not.
    private func couldBeNote(_ diskTarget: String, _ stat: FileStat, limits attachmentLimits: AttachmentLimits, noteLimit: Int) -> Bool {
        // Any file within the limit can be an attachment the scan did not see.
        if EntryKind(path: NotePath.nfc(diskTarget)) == .attachment { return stat.size <= attachmentLimits.maxBytes }
        guard stat.size <= noteLimit, let read = try? engine.files.read(diskTarget), read.stat == stat else { return false }
        return String(validating: read.bytes, as: UTF8.self) != nil
    }

    /// Frees `path` for note `id`: another tracked note's clean file there is removed (its own
    /// server change brings it back); an edited one, or an untracked file, becomes a conflict copy.
    /// - Returns: false when a file there changed under the sync.
    func makeRoom(at path: String, for id: NoteID, in run: inout SyncRun) throws -> Bool {
        if let otherID = run.state.trackedID(at: path), otherID != id, var other = run.state[otherID],
           let disk = other.diskPath, let stat = other.stat {
            let clean = other.local == .clean && !other.frozen && !revealsHiddenEdit(&other)
            switch SyncPlanner.evict(clean: clean, frozen: other.frozen) {
            case .remove:
                guard try engine.files.remove(disk, expecting: stat) else { return false }
            case .conflictCopy(let unsyncable):
                let otherPath = NotePath.nfc(disk)
                let copy = try conflictPath(for: otherPath, in: run.state)
                guard let moved = try engine.files.move(disk, to: copy, expecting: stat) else { return false }
                let hash: String = if case .changed(_, let h) = other.local { h } else { other.row.base.hash }
                run.state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: hash, stat: moved))
                try madeConflictCopy(copy, of: otherPath, reason: unsyncable ? .unsyncableFile : .clash(otherPath, path), in: &run)
            }
            other.evicted = true
            other.diskPath = nil
            other.stat = nil
            other.local = .missing
            run.state.track(other)  // releases the path
        }
        if let file = run.state.untrackedRecord(at: path) {
            return try moveUntrackedToConflictCopy(file, for: path, in: &run)
        }
        return true
    }

    /// Whether a file taken for clean by its metadata alone (docs/architecture.md, Sync invariants 11) holds an edit after
    /// all. Sync reads it once before replacing or removing it: an edit that kept size, mtime and
    /// inode (`touch -r`, `cp -p` onto the file, a save within one tick of a coarse clock) must
    /// cost a missed upload at worst, never the edit. On an edit `tracked` becomes changed, so
    /// the caller decides again (merge, or keep the local version).
    func revealsHiddenEdit(_ tracked: inout TrackedNote) -> Bool {
        guard tracked.local == .clean, !tracked.frozen, let disk = tracked.diskPath, let stat = tracked.stat,
              stat == tracked.row.stat else { return false }  // a file whose metadata moved was read by the scan
        // Unreadable or changed since the scan: the expectation on the write or removal stops it.
        let hash: String
        if EntryKind(path: tracked.row.base.path) == .attachment {
            guard let hashed = try? engine.files.hash(disk), hashed.stat == stat else { return false }
            hash = hashed.hash
        } else {
            guard let read = try? engine.files.read(disk), read.stat == stat else { return false }
            hash = SHA256.hex(of: read.bytes)
        }
        guard hash != tracked.row.base.hash else { return false }
        tracked.local = .changed(path: tracked.row.base.path, hash: hash)
        tracked.row.stat = .unknown
        return true
    }

    /// Moves an untracked file out of the way of the server's note at `path` to a conflict copy
    /// (uploaded later): a case clash when the names differ in case, else both sides created
    /// one path with different texts.
    func moveUntrackedToConflictCopy(_ file: UntrackedFile, for path: String, in run: inout SyncRun) throws -> Bool {
        let copy = try conflictPath(for: file.path, in: run.state)
        guard let moved = try engine.files.move(file.diskPath, to: copy, expecting: file.stat) else { return false }
        run.state.forgetUntracked(file)
        run.state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: file.hash, stat: moved))
        try madeConflictCopy(copy, of: file.path, reason: .clash(file.path, path), in: &run)
        return true
    }

    /// The base a server note becomes once this folder holds exactly it.
    func base(of note: NoteResource) -> SyncBase {
        SyncBase(id: note.id, path: note.path, rev: note.rev, hash: note.hash)
    }

    /// A free conflict-copy path for `path`, made on this device now.
    func conflictPath(for path: String, in state: FolderState) throws -> String {
        for attempt in 1...1000 {
            let candidate = EntryName.conflictPath(for: path, device: engine.folder.config.device,
                                                   millisecondsSinceEpoch: engine.now(), attempt: attempt)
            if state.isFree(candidate), try engine.files.occupant(candidate) == .none {
                return candidate
            }
        }
        throw FolderError.noFreeConflictName(path: path)
    }

    /// Lists a conflict copy just made, and records in the index why it was made (a dry run
    /// only lists it), so `notes conflicts` can tell the user later.
    func madeConflictCopy(_ copy: String, of path: String, reason: ConflictReason, in run: inout SyncRun) throws {
        run.report.conflicts.append(SyncReport.Conflict(path: path, copy: copy, reason: reason))
        guard !engine.options.dryRun else { return }
        try engine.index.recordConflict(ConflictRecord(copy: copy, path: path, reason: reason, madeAt: engine.now()))
    }
}
