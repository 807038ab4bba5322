import NotesCore

/// What the server did with one batch operation, from its HTTP status (docs/architecture.md, Sync invariants 7, 8).
enum BatchStatus: Equatable {
    /// 200: an update or delete was applied.
    case updated
    /// 201: a create was applied.
    case created
    /// 412: the note's revision moved on (or the create's id exists); the answer carries it.
    case stale
    /// 409: another note has the path (compared ignoring case).
    case pathTaken
    /// 404: the server has no such note, not even a tombstone.
    case notFound
    /// Anything else: the operation was refused; left for the next sync.
    case refused(Int)

    init(httpStatus: Int) {
        switch httpStatus {
        case 200: self = .updated
        case 201: self = .created
        case 412: self = .stale
        case 409: self = .pathTaken
        case 404: self = .notFound
        default: self = .refused(httpStatus)
        }
    }
}

/// What each batch result means for the engine.folder.
extension PushPhase {
    mutating func handle(_ result: BatchResult, of upload: Upload, changes: inout [IndexChange], in run: inout SyncRun) async throws {
        do {
            try await handleResult(result, of: upload, changes: &changes, in: &run)
        } catch let error as SyncFileError where error.unsafe {
            skippedUploads.insert(upload.operation.id)
            run.report.warnings.append("\(error)")
        }
    }

    private mutating func handleResult(_ result: BatchResult, of upload: Upload, changes: inout [IndexChange], in run: inout SyncRun) async throws {
        let id = upload.operation.id
        guard var tracked = run.state[id] else { return }
        if result.status == 409, result.error?.code == "content_missing", let hash = upload.hash {
            // The content went from the server between the question and the put (a purge after
            // the hold expired): asked for, and sent, again in the next round.
            contentOnServer.remove(hash)
            return
        }
        var status = BatchStatus(httpStatus: result.status)
        if status == .stale, let current = result.note, Self.isOwnWrite(current, of: upload) {
            // The server already holds exactly this write: a batch retried after its answer was
            // lost. Count it as done rather than as a merge.
            status = .updated
        }
        switch status {
        case .updated, .created:
            guard let note = result.note else { return }
            if upload.kind == .delete {
                run.report.add(.deleted, tracked.row.base.path)
                run.untrack(id, changes: &changes)
                return
            }
            let renamedOnly = upload.kind == .update && note.hash == tracked.row.base.hash && note.path != tracked.row.base.path
            tracked.row.base = apply.base(of: note)
            tracked.row.diskPath = upload.diskPath ?? tracked.row.diskPath
            // The metadata read with the content vouches for the file only if that is what the server has.
            tracked.row.stat = upload.hash == note.hash ? (upload.stat ?? .unknown) : .unknown
            tracked.local = .clean
            run.report.add(renamedOnly ? .renamed : .uploaded, note.path)
            run.track(tracked, changes: &changes)
        case .stale:
            guard let current = result.note else {
                skip(id, upload, result, in: &run)
                return
            }
            let local: LocalState = tracked.evicted ? .missing : tracked.local
            let decision = SyncPlanner.reconcile(base: tracked.row.base, local: local, remote: current)
            if decision == .upToDate {
                skip(id, upload, result, in: &run)
                return
            }
            _ = try await apply.carryOut(decision, for: &tracked, remote: current, changes: &changes, in: &run)
        case .pathTaken:
            try movePathTaken(&tracked, upload: upload, changes: &changes, in: &run)
        case .notFound:
            if upload.kind == .delete {
                run.untrack(id, changes: &changes)
            } else {
                // Gone from the server entirely (a purged tombstone): create it again, same id.
                tracked.row.base.rev = 0
                tracked.row.base.hash = upload.hash ?? tracked.row.base.hash
                tracked.row.stat = .unknown
                run.track(tracked, changes: &changes)
            }
        case .refused:
            skip(id, upload, result, in: &run)
        }
    }

    /// Whether `current` is the state `upload` would have produced.
    private static func isOwnWrite(_ current: NoteResource, of upload: Upload) -> Bool {
        switch upload.kind {
        case .delete: current.deleted
        case .create, .update: !current.deleted && current.hash == upload.hash && current.path == upload.operation.path
        }
    }

    /// Another note has the path (paths are unique ignoring case on the server): the local file
    /// becomes a conflict copy beside it, uploaded under that name next round (docs/architecture.md, Sync invariants 8).
    private mutating func movePathTaken(_ tracked: inout TrackedNote, upload: Upload, changes: inout [IndexChange],
                                        in run: inout SyncRun) throws {
        let id = tracked.row.base.id
        guard let disk = upload.diskPath, let stat = upload.stat, let path = upload.operation.path else { return }
        let copy = try apply.conflictPath(for: path, in: run.state)
        guard let moved = try engine.files.move(disk, to: copy, expecting: stat) else {
            skippedUploads.insert(id)  // edited meanwhile: the next sync tries again
            return
        }
        tracked.diskPath = copy
        tracked.stat = moved
        if tracked.row.base.rev == 0 {
            tracked.row.base.path = copy
            tracked.row.base.hash = upload.hash ?? tracked.row.base.hash
            tracked.row.diskPath = copy
            tracked.row.stat = moved
            tracked.local = .clean
        } else {
            tracked.row.diskPath = copy
            tracked.row.stat = .unknown
            tracked.local = .changed(path: copy, hash: upload.hash ?? tracked.row.base.hash)
        }
        // The server compares paths ignoring case: the note there differs in case, unless this
        // folder tracks one at exactly this path (then both sides made the path).
        let same = run.state.tracked.values.contains { $0.row.base.id != id && $0.row.base.rev > 0 && $0.row.base.path == path }
        try apply.madeConflictCopy(copy, of: path, reason: same ? .overlappingEdit : .caseClash, in: &run)
        run.track(tracked, changes: &changes)
    }

    private mutating func skip(_ id: NoteID, _ upload: Upload, _ result: BatchResult, in run: inout SyncRun) {
        skippedUploads.insert(id)
        let what = upload.operation.path ?? run.state[id]?.row.base.path ?? id.value
        let why = result.error.map { "\($0.message) (\($0.code))" } ?? "HTTP \(result.status)"
        run.report.warnings.append("could not sync \(what): \(why)")
    }
}
