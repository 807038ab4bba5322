import Foundation
import NotesCore

/// Attachments: opaque bytes, moved by hash. Downloads stream into `.notes/tmp` (inside the
/// folder) in ranges each written as it arrives, from where an interrupted one stopped
/// (`ContentDownload`), and are verified against their hash and fsync'd before they are renamed
/// into place; uploads first ask which contents the server lacks, then send only those: small
/// ones several to a request, a larger
/// one chunk by chunk, resuming from the chunks the server already stored. Memory stays a few
/// chunks.
extension SyncEngine {
    /// Downloads the content of attachment `note` and puts it at `diskTarget` if that is still
    /// as `expected`. A dry run downloads nothing and records the write.
    /// - Returns: the file's metadata, or `nil` when the target changed meanwhile.
    /// - Throws: `ClientError.contentMismatch` when the bytes do not hash to `note.hash`
    ///   (nothing is written); network errors as they come.
    func download(_ note: NoteResource, to diskTarget: String, expecting expected: SafeFiles.Expectation) async throws -> FileStat? {
        guard ContentHash.isValid(note.hash), note.size >= 0 else {
            throw ClientError.protocolViolation("the server sent \(note.path) with an invalid hash or size")
        }
        if options.dryRun { return try files.write([], to: diskTarget, expecting: expected) }
        limits = await remote.limits()  // the scan may have read nothing (a fresh clone); asked once per process
        let total = Int64(note.size)
        guard total <= attachmentLimits.maxBytes else {
            throw ClientError.protocolViolation("the server sent \(note.path) with \(total) bytes, over its own attachment limit")
        }
        let safe = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        // Goes on from a partial download an earlier sync left (killed, or cut off).
        let staged = try StagedFile(resuming: note.hash, total: total, scratch: folder.scratchDirectory, for: diskTarget,
                                    mode: try safe.mode(for: diskTarget, expected))
        do {
            try await ContentDownload(remote: remote, hash: note.hash, total: total, path: note.path).fill(staged)
        } catch {
            // Bytes that arrived intact are kept for the next sync; wrong ones never are.
            if ContentDownload.isInterruption(error) { staged.keepForResume() } else { staged.discard() }
            throw error
        }
        return try files.install(staged, at: diskTarget, expecting: expected, durable: true)
    }

    /// Both sides changed attachment `tracked`: attachments are never merged. The local file
    /// becomes a conflict copy beside it (uploaded like any new attachment) and the server's
    /// version goes to the path (docs/architecture.md, Sync invariants 14).
    func keepBothAttachments(for tracked: inout TrackedNote, remote note: NoteResource, changes: inout [IndexChange]) async throws -> Bool {
        guard let disk = tracked.diskPath, let stat = tracked.stat else { return false }
        let localPath = NotePath.nfc(disk)
        let copy = try conflictPath(for: localPath)
        guard let moved = try files.move(disk, to: copy, expecting: stat) else { return false }  // edited meanwhile: next sync
        let hash: String = if case .changed(_, let h) = tracked.local { h } else { tracked.row.base.hash }
        state.addUntracked(UntrackedFile(path: copy, diskPath: copy, hash: hash, stat: moved))
        try madeConflictCopy(copy, of: note.path, reason: .overlappingEdit)
        tracked.diskPath = nil
        tracked.stat = nil
        tracked.local = .missing
        state.track(tracked)  // releases the path
        switch try await place(note, for: &tracked) {
        case .changedUnderneath: return false
        case .refused: return true
        case .placed:
            report.add(.downloaded, note.path)
            track(tracked, changes: &changes)
            return true
        }
    }

    /// Makes sure the server holds the content of every attachment about to be put: asks which
    /// it lacks (`POST /v1/content/missing`: a rename, a copy, or bytes already there cost no
    /// transfer), then uploads each missing one. An attachment that cannot be uploaded (over
    /// the size limit, over the quota, changed since the scan) is skipped for this sync, named
    /// in the report; the rest go on.
    func uploadContents(for ids: [NoteID]) async throws {
        var byHash: [String: (id: NoteID, disk: String, stat: FileStat)] = [:]
        var idsByHash: [String: [NoteID]] = [:]
        for id in ids {
            guard let note = state[id], EntryKind(path: uploadPath(of: note)) == .attachment, note.local != .missing,
                  let disk = note.diskPath, let stat = note.stat else { continue }
            let hash = uploadHash(of: note)
            guard !contentOnServer.contains(hash) else { continue }
            if byHash[hash] == nil { byHash[hash] = (id, disk, stat) }
            idsByHash[hash, default: []].append(id)
        }
        guard !byHash.isEmpty else { return }
        limits = await remote.limits()  // the scan asks only when a file needs it; asked once per process
        let missing = try await remote.missingContent(byHash.keys.sorted())
        contentOnServer.formUnion(Set(byHash.keys).subtracting(missing))
        // Small contents share requests (`POST /v1/content`), and several requests are in flight
        // at once: small files are bound by round trips, not bytes, and the server works on one
        // while the client reads the next. Memory stays bounded by `ContentUploader.inFlight`
        // chunks (a batch is at most one).
        let uploader = ContentUploader(remote: remote, files: SafeFiles(root: folder.root, scratch: folder.scratchDirectory),
                                       limits: attachmentLimits, quotaBytes: limits.quotaBytes)
        let pending = missing.compactMap { hash in
            byHash[hash].map { file in
                let scanned = scannedChunks[file.disk].flatMap { $0.hash == hash && $0.stat == file.stat ? $0.digests : nil }
                return ContentUploader.Pending(hash: hash, disk: file.disk, stat: file.stat, chunks: scanned)
            }
        }
        var queue = ContentUploader.requests(for: pending, batchBytes: attachmentLimits.batchBytes)[...]
        var done = 0
        var changed: [NoteID] = []
        let bodyBytes = ContentUploader.largestBody(of: queue, limits: attachmentLimits)
        try await MallocTuning.largeBodies(bodyBytes: bodyBytes, keptBytes: ContentUploader.chunksInFlight * bodyBytes) {
            try await withThrowingTaskGroup(of: [(hash: String, skip: UploadSkip?)].self) { group in
                func start(_ next: [ContentUploader.Pending]?) {
                    guard let next else { return }
                    group.addTask { try await uploader.upload(batch: next) }
                }
                for _ in 0..<ContentUploader.inFlight { start(queue.popFirst()) }
                while let outcomes = try await group.next() {
                    start(queue.popFirst())
                    for (hash, skip) in outcomes {
                        if let skip {
                            for id in idsByHash[hash] ?? [] {
                                skippedUploads.insert(id)
                                if skip.contentChanged { changed.append(id) }
                                let path = state[id].map(uploadPath(of:)) ?? byHash[hash]?.disk ?? hash
                                report.skipped.append(.init(path: path, reason: skip.reason, detail: skip.detail))
                                report.warnings.append("skipped \(path): \(skip.detail)")
                            }
                        } else {
                            contentOnServer.insert(hash)
                        }
                    }
                    done += outcomes.count
                    options.progress?("uploading attachments", done, missing.count)
                }
            }
        }
        try forgetMetadata(of: changed)
    }

    /// Files whose bytes turned out not to be those the scan hashed: rewritten in place with
    /// their size and modification time as before, which the metadata cannot show. Their index
    /// rows forget the metadata, so the next scan hashes them again rather than taking them
    /// for unchanged and sending the stale hash every sync.
    private func forgetMetadata(of ids: [NoteID]) throws {
        guard !ids.isEmpty else { return }
        var changes: [IndexChange] = []
        for id in ids {
            guard var note = state[id] else { continue }
            note.row.stat = .unknown
            track(note, changes: &changes)
        }
        try commit(changes)
    }

    /// The path a pending upload of `note` goes to.
    func uploadPath(of note: TrackedNote) -> String {
        if case .changed(let path, _) = note.local { return path }
        return note.row.base.path
    }

    /// The content hash a pending upload of `note` sends.
    func uploadHash(of note: TrackedNote) -> String {
        if case .changed(_, let hash) = note.local { return hash }
        return note.row.base.hash
    }
}
