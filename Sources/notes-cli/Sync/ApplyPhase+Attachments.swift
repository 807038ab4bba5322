import Foundation
import NotesCore

/// Attachments as they come from the server: opaque bytes, moved by hash. Downloads stream into
/// `.notes/tmp` (inside the folder) in ranges each written as it arrives, from where an
/// interrupted one stopped (`ContentDownload`), and are verified against their hash and fsync'd
/// before they are renamed into place. Memory stays a few chunks.
extension ApplyPhase {
    /// Downloads the content of attachment `note` and puts it at `diskTarget` if that is still
    /// as `expected`. A dry run downloads nothing and records the write.
    /// - Returns: the file's metadata, or `nil` when the target changed meanwhile.
    /// - Throws: `ClientError.contentMismatch` when the bytes do not hash to `note.hash`
    ///   (nothing is written); network errors as they come.
    func download(_ note: NoteResource, to diskTarget: String, expecting expected: SafeFiles.Expectation,
                  in run: inout SyncRun) async throws -> FileStat? {
        guard ContentHash.isValid(note.hash), note.size >= 0 else {
            throw ClientError.protocolViolation("the server sent \(note.path) with an invalid hash or size")
        }
        if engine.options.dryRun { return try engine.files.write([], to: diskTarget, expecting: expected) }
        run.limits = await engine.remote.limits()  // the scan may have read nothing (a fresh clone); asked once per process
        let total = Int64(note.size)
        guard total <= run.attachmentLimits.maxBytes else {
            throw ClientError.protocolViolation("the server sent \(note.path) with \(total) bytes, over its own attachment limit")
        }
        let safe = SafeFiles(root: engine.folder.root, scratch: engine.folder.scratchDirectory)
        // Goes on from a partial download an earlier sync left (killed, or cut off).
        let staged = try StagedFile(resuming: note.hash, total: total, scratch: engine.folder.scratchDirectory, for: diskTarget,
                                    mode: try safe.mode(for: diskTarget, expected))
        do {
            try await ContentDownload(remote: engine.remote, hash: note.hash, total: total, path: note.path).fill(staged)
        } catch {
            // Bytes that arrived intact are kept for the next sync; wrong ones never are.
            if ContentDownload.isInterruption(error) { staged.keepForResume() } else { staged.discard() }
            throw error
        }
        return try engine.files.install(staged, at: diskTarget, expecting: expected, durable: true)
    }

    /// Both sides changed attachment `tracked`: attachments are never merged. The local file
    /// becomes a conflict copy beside it (uploaded like any new attachment) and the server's
    /// version goes to the path (docs/architecture.md, Sync invariants 14).
    func keepBothAttachments(for tracked: inout TrackedNote, remote note: NoteResource, changes: inout [IndexChange],
                             in run: inout SyncRun) async throws -> Bool {
        guard let disk = tracked.diskPath, let stat = tracked.stat else { return false }
        let localPath = NotePath.nfc(disk)
        let copy = try conflictPath(for: localPath, in: run.state)
        guard let moved = try engine.files.move(disk, to: copy, expecting: stat) else { return false }  // edited meanwhile: next sync
        let hash: String = if case .changed(_, let h) = tracked.local { h } else { tracked.row.base.hash }
        run.state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: hash, stat: moved))
        try madeConflictCopy(copy, of: note.path, reason: .overlappingEdit, in: &run)
        tracked.diskPath = nil
        tracked.stat = nil
        tracked.local = .missing
        run.state.track(tracked)  // releases the path
        return try await placeAndTrack(note, for: &tracked, changes: &changes, in: &run)
    }
}
