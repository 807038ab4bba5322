import NotesCore

/// Concurrent edits: three-way merge against the base revision (docs/architecture.md, Sync invariants 2).
extension ApplyPhase {
    /// Merges the local file with the server's note. A clean merge is written here and uploaded
    /// by the push; an overlapping one keeps the server's version at the path and the local
    /// version as a conflict copy, which is uploaded like any new note.
    func merge(at path: String, for tracked: inout TrackedNote, remote note: NoteResource,
               changes: inout [IndexChange], in run: inout SyncRun) async throws -> Bool {
        if note.kind == .attachment || EntryKind(path: path) == .attachment {
            return try await keepBothAttachments(for: &tracked, remote: note, changes: &changes, in: &run)
        }
        guard let disk = tracked.diskPath, let stat = tracked.stat, let theirs = try await remoteContent(of: note) else { return false }
        let local = try engine.files.read(disk)
        guard local.stat == stat else { return false }  // edited since the scan: merge next time
        let baseBytes = try await baseContent(of: tracked.row.base)
        switch ThreeWayMerge.merge(base: baseBytes, ours: local.bytes, theirs: Array(theirs.utf8)) {
        case .clean(let merged):
            switch try await placeContent(.bytes(merged), at: path, for: &tracked, in: &run) {
            case .changedUnderneath: return false
            case .refused: return true
            case .placed: break
            }
            let mergedHash = SHA256.hex(of: merged)
            tracked.row.base = base(of: note)
            if mergedHash == note.hash && path == note.path {
                tracked.local = .clean
            } else {
                tracked.local = .changed(path: path, hash: mergedHash)
                tracked.row.stat = .unknown  // the file is not the base: read it next time
            }
            run.report.add(.merged, path)
            run.track(tracked, changes: &changes)
            return true
        case .conflict:
            let written: FileStat?
            let copy: String
            do {
                copy = try conflictPath(for: path, in: run.state)
                written = try engine.files.write(local.bytes, to: copy, expecting: .absent)
            } catch let error as SyncFileError where error.unsafe {
                run.report.warnings.append("\(error)")
                return true
            }
            guard let written else { return false }
            run.state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: SHA256.hex(of: local.bytes), stat: written))
            try madeConflictCopy(copy, of: path, reason: .overlappingEdit, in: &run)
            tracked.local = .clean
            switch try await place(note, for: &tracked, in: &run) {
            case .changedUnderneath: return false
            case .refused: return true
            case .placed:
                run.track(tracked, changes: &changes)
                return true
            }
        }
    }

    /// The server's content of `note`: sent with it, or fetched as its revision (a 412 answer
    /// or a metadata page carries none). `nil` when the server no longer has it.
    private func remoteContent(of note: NoteResource) async throws -> String? {
        if let content = note.content { return content }
        return try await engine.remote.revision(id: note.id, rev: note.rev)?.content
    }

    /// The content of a base revision; empty for a create never confirmed, or a revision the
    /// server no longer has (the merge then sees two unrelated texts and keeps both).
    private func baseContent(of base: SyncBase) async throws -> [UInt8] {
        guard base.rev > 0, let revision = try await engine.remote.revision(id: base.id, rev: base.rev) else { return [] }
        return Array((revision.content ?? "").utf8)
    }
}
