import NotesCore

/// Carrying out the planner's decisions on the folder.
///
/// An index row's file metadata is recorded only when the file holds exactly the row's base;
/// otherwise it is `unknown`, so the next scan reads the file instead of trusting metadata.
extension SyncEngine {
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
                  changes: inout [IndexChange]) async throws -> Bool {
        if decision == .takeRemote || decision == .deleteLocal, revealsHiddenEdit(&tracked) {
            let decision = SyncPlanner.reconcile(base: tracked.row.base, local: tracked.local, remote: note)
            return try await carryOut(decision, for: &tracked, remote: note, changes: &changes)
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
            track(tracked, changes: &changes)
            return true
        case .takeRemote:
            let onlyMoved = note.hash == tracked.row.base.hash && tracked.local == .clean
            switch try await place(note, for: &tracked) {
            case .changedUnderneath: return false
            case .refused: return true
            case .placed:
                report.add(onlyMoved ? .renamed : .downloaded, note.path)
                track(tracked, changes: &changes)
                return true
            }
        case .deleteLocal:
            if let disk = tracked.diskPath, let stat = tracked.stat {
                guard try files.remove(disk, expecting: stat) else { return false }
            }
            report.add(.deleted, tracked.row.base.path)
            untrack(tracked.row.base.id, changes: &changes)
            return true
        case .forget:
            untrack(tracked.row.base.id, changes: &changes)
            return true
        case .keepLocal(let path):
            return try keepLocal(at: path, for: &tracked, remote: note, changes: &changes)
        case .merge(let path):
            return try await merge(at: path, for: &tracked, remote: note, changes: &changes)
        }
    }

    /// Rebases the local edit onto the server's revision; it is uploaded by the push.
    private func keepLocal(at path: String, for tracked: inout TrackedNote, remote note: NoteResource,
                           changes: inout [IndexChange]) throws -> Bool {
        let hash: String
        switch tracked.local {
        case .changed(_, let localHash): hash = localHash
        default: hash = tracked.row.base.hash
        }
        if let disk = tracked.diskPath, let stat = tracked.stat, key(disk) != key(path) {
            guard try makeRoom(at: path, for: tracked.row.base.id) else { return false }
            guard let moved = try files.move(disk, to: path, expecting: stat) else { return false }
            tracked.diskPath = path
            tracked.stat = moved
        }
        tracked.row.base = base(of: note)
        tracked.row.diskPath = tracked.diskPath ?? tracked.row.diskPath
        tracked.row.stat = .unknown
        tracked.local = .changed(path: path, hash: hash)
        track(tracked, changes: &changes)
        return true
    }

    /// Writes the server's content of `note` at its path for `tracked`, replacing the note's own
    /// file (as scanned) and making room at the path.
    func place(_ note: NoteResource, for tracked: inout TrackedNote) async throws -> PlaceOutcome {
        let outcome: PlaceOutcome
        if note.kind == .attachment {
            outcome = try await placeContent(.attachment(note), at: note.path, for: &tracked)
        } else {
            guard let content = note.content else {
                report.warnings.append("the server sent \(note.path) without content; it will be fetched next time")
                return .changedUnderneath
            }
            outcome = try await placeContent(.bytes(Array(content.utf8)), at: note.path, for: &tracked)
        }
        if outcome == .placed {
            tracked.row.base = base(of: note)
            tracked.local = .clean
            tracked.evicted = false
        }
        return outcome
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
    func placeContent(_ content: PlacedContent, at path: String, for tracked: inout TrackedNote) async throws -> PlaceOutcome {
        let id = tracked.row.base.id
        let targetKey = key(path)
        let ownKey = tracked.diskPath.map(key)
        var diskTarget = ownKey == targetKey ? (tracked.diskPath ?? path) : path
        let expectation: SafeFiles.Expectation
        if ownKey == targetKey, let stat = tracked.stat { expectation = .file(stat) } else { expectation = .absent }
        var written: FileStat?
        do {
            if ownKey != targetKey, let same = try identicalUntracked(at: path, content) {
                // The bytes are there already: a sync stopped after writing them but before
                // recording them left this file. Adopted, not copied aside as a duplicate.
                state.forgetUntracked(same)
                diskTarget = same.diskPath
                written = same.stat
            } else {
                if ownKey != targetKey {
                    guard try makeRoom(at: path, for: id) else { return .changedUnderneath }
                }
                switch content {
                case .bytes(let bytes):
                    // Written first and the obstacle looked at only when the write finds the place
                    // taken (it never replaces what it did not expect): a clone's notes land in
                    // free places, and looking first cost two system calls a note.
                    written = try files.write(bytes, to: diskTarget, expecting: expectation)
                    if written == nil, ownKey != targetKey {
                        if let outcome = try clearObstacle(at: diskTarget, for: path) { return outcome }
                        written = try files.write(bytes, to: diskTarget, expecting: expectation)
                    }
                case .attachment(let note):
                    // A download is looked ahead of: it is not fetched for a place that is taken.
                    if ownKey != targetKey, let outcome = try clearObstacle(at: diskTarget, for: path) { return outcome }
                    written = try await download(note, to: diskTarget, expecting: expectation)
                }
            }
        } catch let error as SyncFileError where error.unsafe {
            report.warnings.append("\(error)")
            return .refused
        }
        guard let written else { return .changedUnderneath }
        if ownKey != targetKey, let old = tracked.diskPath, let oldStat = tracked.stat {
            // The note moved: its old file goes, unless it was edited meanwhile (then it stays,
            // and the next sync uploads it as a new note: nothing is lost).
            _ = try? files.remove(old, expecting: oldStat)
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
    private func identicalUntracked(at path: String, _ content: PlacedContent) throws -> UntrackedFile? {
        guard let file = state.untracked(at: path), file.hash == content.hash,
              try files.occupant(file.diskPath) == .file(file.stat) else { return nil }
        return file
    }

    /// Deals with what is still at `diskTarget` once `makeRoom` is done, before a note is written
    /// there, as `SyncPlanner.clear` decides: nothing to do (`nil`), or the outcome when the note
    /// cannot be written now.
    private func clearObstacle(at diskTarget: String, for path: String) throws -> PlaceOutcome? {
        let found = try files.occupant(diskTarget)
        let obstacle: SyncPlanner.Obstacle
        switch found {
        case .none: obstacle = .none
        case .other: obstacle = .notAFile
        case .file(let stat):
            let ignored = ignore.isIgnored(path)
            obstacle = .file(ignored: ignored, couldBeNote: !ignored && couldBeNote(diskTarget, stat))
        }
        switch SyncPlanner.clear(obstacle) {
        case .write:
            return nil
        case .leaveAlone:
            report.warnings.append(obstacle == .notAFile
                ? "left alone \(path): something that is not a note file is in the way"
                : "left alone \(path): an ignored file is in the way of the server's note")
            return .refused
        case .retryNextSync:
            return .changedUnderneath
        case .moveToConflictCopy:
            guard case .file(let stat) = found else { return .changedUnderneath }
            let copy = try conflictPath(for: path)
            guard try files.move(diskTarget, to: copy, expecting: stat) != nil else { return .changedUnderneath }
            report.warnings.append("moved \(path) to \(copy): it cannot be synced (not UTF-8 text, or too large), and the server has a note there")
            try madeConflictCopy(copy, of: path, reason: .unsyncableFile)
            return nil
        }
    }

    /// Whether the file at `diskTarget` (as `stat` says) is UTF-8 text within the note limit,
    /// unchanged while read: a note file the scan did not see. An unreadable file is not.
    private func couldBeNote(_ diskTarget: String, _ stat: FileStat) -> Bool {
        // Any file within the limit can be an attachment the scan did not see.
        if EntryKind(path: NotePath.nfc(diskTarget)) == .attachment { return stat.size <= attachmentLimits.maxBytes }
        guard stat.size <= noteLimit, let read = try? files.read(diskTarget), read.stat == stat else { return false }
        return String(validating: read.bytes, as: UTF8.self) != nil
    }

    /// Frees `path` for note `id`: another tracked note's clean file there is removed (its own
    /// server change brings it back); an edited one, or an untracked file, becomes a conflict copy.
    /// - Returns: false when a file there changed under the sync.
    func makeRoom(at path: String, for id: NoteID) throws -> Bool {
        if let otherID = state.trackedID(at: path), otherID != id, var other = state[otherID],
           let disk = other.diskPath, let stat = other.stat {
            let clean = other.local == .clean && !other.frozen && !revealsHiddenEdit(&other)
            switch SyncPlanner.evict(clean: clean, frozen: other.frozen) {
            case .remove:
                guard try files.remove(disk, expecting: stat) else { return false }
            case .conflictCopy(let unsyncable):
                let otherPath = NotePath.nfc(disk)
                let copy = try conflictPath(for: otherPath)
                guard let moved = try files.move(disk, to: copy, expecting: stat) else { return false }
                let hash: String = if case .changed(_, let h) = other.local { h } else { other.row.base.hash }
                state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: hash, stat: moved))
                try madeConflictCopy(copy, of: otherPath, reason: unsyncable ? .unsyncableFile : .clash(otherPath, path))
            }
            other.evicted = true
            other.diskPath = nil
            other.stat = nil
            other.local = .missing
            state.track(other)  // releases the path
        }
        if let file = state.untrackedRecord(at: path) {
            return try moveUntrackedToConflictCopy(file, for: path)
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
            guard let hashed = try? files.hash(disk), hashed.stat == stat else { return false }
            hash = hashed.hash
        } else {
            guard let read = try? files.read(disk), read.stat == stat else { return false }
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
    func moveUntrackedToConflictCopy(_ file: UntrackedFile, for path: String) throws -> Bool {
        let copy = try conflictPath(for: file.path)
        guard let moved = try files.move(file.diskPath, to: copy, expecting: file.stat) else { return false }
        state.forgetUntracked(file)
        state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: file.hash, stat: moved))
        try madeConflictCopy(copy, of: file.path, reason: .clash(file.path, path))
        return true
    }
}
