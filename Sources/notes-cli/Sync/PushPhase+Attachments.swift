import NotesCore

/// Attachments on their way to the server: the push first asks which contents the server lacks,
/// then sends only those: small ones several to a request, a larger one chunk by chunk, resuming
/// from the chunks the server already stored. Memory stays a few chunks.
extension PushPhase {
    /// Makes sure the server holds the content of every attachment about to be put: asks which
    /// it lacks (`POST /v1/content/missing`: a rename, a copy, or bytes already there cost no
    /// transfer), then uploads each missing one. An attachment that cannot be uploaded (over
    /// the size limit, over the quota, changed since the scan) is skipped for this sync, named
    /// in the report; the rest go on.
    mutating func uploadContents(for ids: [NoteID], in run: inout SyncRun) async throws {
        var byHash: [String: (id: NoteID, disk: String, stat: FileStat)] = [:]
        var idsByHash: [String: [NoteID]] = [:]
        for id in ids {
            guard let note = run.state[id], EntryKind(path: uploadPath(of: note)) == .attachment, note.local != .missing,
                  let disk = note.diskPath, let stat = note.stat else { continue }
            let hash = uploadHash(of: note)
            guard !contentOnServer.contains(hash) else { continue }
            if byHash[hash] == nil { byHash[hash] = (id, disk, stat) }
            idsByHash[hash, default: []].append(id)
        }
        guard !byHash.isEmpty else { return }
        run.limits = await engine.remote.limits()  // the scan asks only when a file needs it; asked once per process
        let missing = try await engine.remote.missingContent(byHash.keys.sorted())
        contentOnServer.formUnion(Set(byHash.keys).subtracting(missing))
        // Small contents share requests (`POST /v1/content`), and several requests are in flight
        // at once: small files are bound by round trips, not bytes, and the server works on one
        // while the client reads the next. Memory stays bounded by `ContentUploader.inFlight`
        // chunks (a batch is at most one).
        let uploader = ContentUploader(remote: engine.remote, files: SafeFiles(root: engine.folder.root, scratch: engine.folder.scratchDirectory),
                                       limits: run.attachmentLimits, quotaBytes: run.limits.quotaBytes)
        let pending = missing.compactMap { hash in
            byHash[hash].map { file in
                let scanned = scannedChunks[file.disk].flatMap { $0.hash == hash && $0.stat == file.stat ? $0.digests : nil }
                return ContentUploader.Pending(hash: hash, disk: file.disk, stat: file.stat, chunks: scanned)
            }
        }
        var queue = ContentUploader.requests(for: pending, batchBytes: run.attachmentLimits.batchBytes)[...]
        var done = 0
        var changed: [NoteID] = []
        let bodyBytes = ContentUploader.largestBody(of: queue, limits: run.attachmentLimits)
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
                                let path = run.state[id].map(uploadPath(of:)) ?? byHash[hash]?.disk ?? hash
                                run.report.skipped.append(.init(path: path, reason: skip.reason, detail: skip.detail))
                                run.report.warnings.append("skipped \(path): \(skip.detail)")
                            }
                        } else {
                            contentOnServer.insert(hash)
                        }
                    }
                    done += outcomes.count
                    engine.options.progress?("uploading attachments", done, missing.count)
                }
            }
        }
        try forgetMetadata(of: changed, in: &run)
    }

    /// Files whose bytes turned out not to be those the scan hashed: rewritten in place with
    /// their size and modification time as before, which the metadata cannot show. Their index
    /// rows forget the metadata, so the next scan hashes them again rather than taking them
    /// for unchanged and sending the stale hash every sync.
    private func forgetMetadata(of ids: [NoteID], in run: inout SyncRun) throws {
        guard !ids.isEmpty else { return }
        var changes: [IndexChange] = []
        for id in ids {
            guard var note = run.state[id] else { continue }
            note.row.stat = .unknown
            run.track(note, changes: &changes)
        }
        try engine.commit(changes)
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
