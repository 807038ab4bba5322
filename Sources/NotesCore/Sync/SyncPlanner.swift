/// What the client last agreed on with the server for one note: the merge base.
public struct SyncBase: Equatable, Sendable {
    public var id: NoteID
    /// The NFC path the note had at the last sync.
    public var path: String
    /// The server revision of the base; 0 for a create sent but not yet confirmed.
    public var rev: Int64
    /// SHA-256 hex of the base content (for an unconfirmed create: of the content sent).
    public var hash: String

    public init(id: NoteID, path: String, rev: Int64, hash: String) {
        self.id = id
        self.path = path
        self.rev = rev
        self.hash = hash
    }
}

/// A tracked note's file, compared with its base.
public enum LocalState: Equatable, Sendable {
    /// The file is at the base path with the base content.
    case clean
    /// The file's content and/or path differ from the base (a rename keeps the id).
    case changed(path: String, hash: String)
    /// The file is gone (deleted locally, and not found elsewhere by content).
    case missing
}

/// What to do with a tracked note when the server reports its current state.
public enum RemoteDecision: Equatable, Sendable {
    /// The server has nothing newer than the base.
    case upToDate
    /// The server's note equals the local file already: only record its revision as the base.
    case record
    /// Write the server's content at the server's path (removing the file at the base path if it
    /// moved); the local file is clean, missing (an edit beats a delete) or equal in content.
    case takeRemote
    /// The server deleted the note and the local file is clean: remove it.
    case deleteLocal
    /// Both sides deleted the note: forget it.
    case forget
    /// Keep the local content at `path` and upload it on top of the server's revision: a local
    /// edit beats a remote delete, and a remote rename alone does not touch local content.
    case keepLocal(path: String)
    /// Both sides changed the content: merge three ways; the note lives at `path` afterwards.
    case merge(path: String)
}

/// The sync planner: pure decisions from states, so every rule of docs/architecture.md's Sync invariants is testable without
/// a folder or a server. The engine gathers the states, asks, and carries out the answer.
public enum SyncPlanner {
    /// Decides what a server change means for a tracked note.
    ///
    /// Decisions use revisions and content hashes only, never clocks (docs/architecture.md, Sync invariants 5). Path
    /// conflicts resolve the same way everywhere: a local rename wins over a remote one (it is
    /// uploaded on top of the remote revision), otherwise the note follows the server's path.
    /// - Parameters:
    ///   - base: the note's base from the index.
    ///   - local: the local file's state against that base.
    ///   - remote: the server's current state of the note (from the changes feed or a 412).
    public static func reconcile(base: SyncBase, local: LocalState, remote: NoteResource) -> RemoteDecision {
        guard remote.rev > base.rev else { return .upToDate }
        switch local {
        case .clean:
            if remote.deleted { return .deleteLocal }
            if remote.hash == base.hash && remote.path == base.path { return .record }
            return .takeRemote
        case .missing:
            // A remote edit beats a local delete: restore the note. A delete on both is fine.
            return remote.deleted ? .forget : .takeRemote
        case .changed(let path, let hash):
            if remote.deleted { return .keepLocal(path: path) }
            let target = path != base.path ? path : remote.path
            if hash == remote.hash {
                if target == remote.path { return path == remote.path ? .record : .takeRemote }
                return .keepLocal(path: target)
            }
            if remote.hash == base.hash { return .keepLocal(path: target) }
            return .merge(path: target)
        }
    }

    /// What to do with a note the index does not know (new on the server), given the untracked
    /// local file already at its path, if any.
    public enum NewNoteDecision: Equatable, Sendable {
        /// Nothing: a tombstone of a note this folder never had.
        case ignore
        /// Write it at its path.
        case write
        /// The local file at the path has the same content: adopt it as this note.
        case adopt
        /// Move the local file to a conflict copy, then write the note at its path (the server's
        /// version stays at the path, docs/architecture.md, Sync invariants 2).
        case conflictCopyThenWrite
    }

    /// Decides what a note new to this folder means; `occupantHash` is the content hash of the
    /// untracked file already at its path (under the folder's case rules), `nil` if none.
    public static func reconcileNew(remote: NoteResource, occupantHash: String?) -> NewNoteDecision {
        if remote.deleted { return .ignore }
        guard let occupantHash else { return .write }
        return occupantHash == remote.hash ? .adopt : .conflictCopyThenWrite
    }

    /// Pairs missing tracked files with new files of the same content: those are renames or
    /// moves and keep their note id (docs/architecture.md, Sync invariants 4).
    ///
    /// When several candidates share a hash (duplicated files), a new file with the same file
    /// name is preferred (a move to another folder), then paths in sorted order, so every
    /// replica pairs the same way.
    /// - Returns: for each paired note id, its new path.
    public static func detectRenames(missing: [SyncBase], added: [(path: String, hash: String)]) -> [NoteID: String] {
        var addedByHash: [String: [String]] = [:]
        for file in added { addedByHash[file.hash, default: []].append(file.path) }
        var result: [NoteID: String] = [:]
        for base in missing.sorted(by: { $0.path < $1.path }) {
            guard var candidates = addedByHash[base.hash], !candidates.isEmpty else { continue }
            candidates.sort()
            let name = fileName(base.path)
            let index = candidates.firstIndex { fileName($0) == name } ?? 0
            result[base.id] = candidates.remove(at: index)
            addedByHash[base.hash] = candidates
        }
        return result
    }

    /// Whether deleting `deleting` of `total` tracked notes needs `--allow-mass-delete`: all of
    /// them (an emptied or unmounted folder), or more than half when over 20 would go (docs/architecture.md, Sync invariants 9).
    public static func isMassDelete(deleting: Int, of total: Int) -> Bool {
        guard deleting > 0 else { return false }
        return deleting >= total || (deleting > 20 && deleting * 2 > total)
    }

    /// What the push does with a tracked note.
    public enum UploadDecision: Equatable, Sendable {
        /// Nothing to send.
        case none
        /// Send it: a create (revision 0), an edit or rename, or a delete.
        case send
        /// A create never confirmed whose file is gone: forget it, there is nothing to send.
        case drop
    }

    /// Decides whether a tracked note has something to upload. `evicted`: its file was removed
    /// by sync itself to make room for another note, which is never a user's delete.
    public static func upload(base: SyncBase, local: LocalState, evicted: Bool) -> UploadDecision {
        switch (base.rev, local) {
        case (0, .missing): .drop
        case (0, _), (_, .changed): .send
        case (_, .missing): evicted ? .none : .send
        case (_, .clean): .none
        }
    }

    /// What a complete resync does with a confirmed note the feed never mentioned (unknown to
    /// the server: deleted so long ago that even its tombstone is gone, or never there).
    public enum UnknownNoteDecision: Equatable, Sendable {
        /// Deleted here and unknown there: nothing to keep.
        case forget
        /// Keep the file and create the note again under the same id: a resync never deletes
        /// a local file (docs/architecture.md, Sync invariants 12).
        case createAgain
    }

    public static func unknownToServer(local: LocalState) -> UnknownNoteDecision {
        local == .missing ? .forget : .createAgain
    }

    /// What to do with another tracked note's file at the path a note is about to take.
    public enum EvictionDecision: Equatable, Sendable {
        /// Remove it: its content is its base, which its own server change brings back.
        case remove
        /// Keep it as a conflict copy, uploaded later: it holds an edit (a clash of two paths),
        /// or it cannot be synced at all (`unsyncable`), so nothing else would keep it.
        case conflictCopy(unsyncable: Bool)
    }

    /// Decides how to free a path held by another tracked note's file. `clean` means the file
    /// holds its base (after the read that reveals an edit hidden behind unchanged metadata);
    /// `frozen` that it cannot be synced (not UTF-8).
    public static func evict(clean: Bool, frozen: Bool) -> EvictionDecision {
        clean && !frozen ? .remove : .conflictCopy(unsyncable: frozen)
    }

    /// What is found at a path on disk just before a note is written there, once every file the
    /// sync knows of has been moved out of the way.
    public enum Obstacle: Equatable, Sendable {
        case none
        /// A folder, a symbolic link or anything else that is not a regular file.
        case notAFile
        /// A regular file; `ignored` when `.notesignore` covers the path, `couldBeNote` when it
        /// is UTF-8 text within the note limit (and unchanged while it was read).
        case file(ignored: Bool, couldBeNote: Bool)
    }

    /// What to do about an obstacle in the way of the server's note.
    public enum ObstacleDecision: Equatable, Sendable {
        /// Nothing in the way: write the note.
        case write
        /// Leave the obstacle and do not write the note here (sync never replaces it).
        case leaveAlone
        /// A note file appeared since the scan: the next sync plans it; the change is seen again.
        case retryNextSync
        /// A file that can never be a note: kept whole under a conflict-copy name, so it does
        /// not block this change (and with it the cursor) forever.
        case moveToConflictCopy
    }

    /// Decides what to do about `obstacle`. An ignored file is the user's to keep, so it is left
    /// alone even when it could never be a note.
    public static func clear(_ obstacle: Obstacle) -> ObstacleDecision {
        switch obstacle {
        case .none: .write
        case .notAFile: .leaveAlone
        case .file(ignored: true, _): .leaveAlone
        case .file(ignored: false, couldBeNote: true): .retryNextSync
        case .file(ignored: false, couldBeNote: false): .moveToConflictCopy
        }
    }

    private static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }
}
