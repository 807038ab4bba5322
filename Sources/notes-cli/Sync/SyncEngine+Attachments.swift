import Foundation
import NotesCore

/// Attachments: opaque bytes, moved by hash. Downloads stream into `.notes/tmp` (inside the
/// folder) range by range, are verified against their hash and fsync'd before they are renamed
/// into place; uploads first ask which contents the server lacks, then send only those, chunk by
/// chunk, resuming from the chunks the server already stored. Memory stays about one chunk.
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
        let staged = try StagedFile(scratch: folder.scratchDirectory, for: diskTarget, mode: try safe.mode(for: diskTarget, expected))
        do {
            let chunk = attachmentLimits.chunkBytes
            var offset: Int64 = 0
            repeat {
                let length = Int(min(Int64(chunk), total - offset))
                let bytes = try await remote.content(hash: note.hash, offset: offset, length: length, total: total)
                try staged.append(bytes)
                offset += Int64(length)
            } while offset < total
            guard staged.finalHash() == note.hash else { throw ClientError.contentMismatch(path: note.path) }
        } catch {
            staged.discard()
            throw error
        }
        return try files.install(staged, at: diskTarget, expecting: expected, durable: true)
    }

    /// Both sides changed attachment `tracked`: attachments are never merged. The local file
    /// becomes a conflict copy beside it (uploaded like any new attachment) and the server's
    /// version goes to the path (DESIGN 4.14).
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
        let missing = try await remote.missingContent(byHash.keys.sorted())
        contentOnServer.formUnion(Set(byHash.keys).subtracting(missing))
        for (done, hash) in missing.enumerated() {
            guard let source = byHash[hash] else { continue }
            if let skip = try await upload(hash: hash, from: source.disk, stat: source.stat) {
                for id in idsByHash[hash] ?? [] {
                    skippedUploads.insert(id)
                    let path = state[id].map(uploadPath(of:)) ?? source.disk
                    report.skipped.append(.init(path: path, reason: skip.reason, detail: skip.detail))
                    report.warnings.append("skipped \(path): \(skip.detail)")
                }
            } else {
                contentOnServer.insert(hash)
            }
            options.progress?("uploading attachments", done + 1, missing.count)
        }
    }

    /// Why an upload was given up for this sync.
    struct UploadSkip {
        var reason: SyncReport.Skipped.Reason
        var detail: String
    }

    /// Uploads one content in chunks, sending only those the server has not stored.
    /// - Returns: `nil` when the server holds the content now, else why it was given up.
    private func upload(hash: String, from disk: String, stat: FileStat) async throws -> UploadSkip? {
        let upload: UploadState
        do {
            upload = try await remote.openUpload(hash: hash, size: stat.size)
        } catch ClientError.status(let error) where error.status == 413 {
            return UploadSkip(reason: .tooLarge, detail: "\(stat.size) bytes, over the server's attachment limit of "
                              + "\(attachmentLimits.maxBytes) bytes (\(error.message))")
        } catch ClientError.status(let error) where error.status == 507 {
            let quota = limits.quotaBytes.map { " of \($0) bytes" } ?? ""
            return UploadSkip(reason: .quotaExceeded, detail: "\(stat.size) bytes would exceed the account's storage quota\(quota) (\(error.message))")
        }
        let safe = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        let received = Set(upload.received)
        for index in 0..<upload.chunkCount where !received.contains(index) {
            let offset = Int64(index) * Int64(upload.chunkSize)
            let length = Int(min(Int64(upload.chunkSize), stat.size - offset))
            let bytes: [UInt8]?
            do {
                bytes = try safe.readRange(disk, offset: offset, count: length, expecting: stat)
            } catch let error as SyncFileError {
                return UploadSkip(reason: .unreadable, detail: "\(error)")
            }
            guard let bytes else {
                return UploadSkip(reason: .unreadable, detail: "it changed while it was being uploaded; it is sent next sync")
            }
            try await remote.putChunk(hash: hash, index: index, bytes: bytes)
        }
        do {
            try await remote.completeUpload(hash: hash)
        } catch ClientError.status(let error) where error.status == 422 {
            return UploadSkip(reason: .unreadable, detail: "it changed while it was being uploaded; it is sent next sync (\(error.message))")
        }
        return nil
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
