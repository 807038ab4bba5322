import NotesCore

/// The push: local creates, edits, renames and deletes through `/v1/batch`, each with a
/// precondition, so nothing on the server is overwritten unseen and a retried batch is harmless.
///
/// Each answer's feed span goes into `ownWrites`; while the spans chain from the stored cursor,
/// the cursor moves over them in the same index transaction as the batch's results, so the pull
/// after the push has nothing of this folder's to read back (and is skipped when the chain covers
/// the whole push), and a kill never leaves the cursor ahead of the rows.
///
/// It owns what only uploading needs: the texts and chunk digests the scan kept for it, the
/// uploads that cannot go this sync, the contents known to be on the server, the chain of its
/// own writes, and the early uploads made while the scan reads (`EarlyUploads`). The folder
/// state and the report are the run's.
struct PushPhase {
    let engine: SyncEngine
    let apply: ApplyPhase
    /// Notes whose upload failed for a reason retrying cannot fix; left for the next sync.
    var skippedUploads = Set<NoteID>()
    /// Attachment contents the server was found to hold (or was sent) during this sync.
    var contentOnServer = Set<String>()
    /// The push's own writes, chained from the cursor the pull before it reached.
    var ownWrites = OwnWriteChain(from: nil)
    /// The texts the scan read of new and changed notes, taken by the push (`ScannedTexts`).
    var scannedTexts = ScannedTexts.none
    /// The chunk digests the scan took of large attachments, by disk path (`ScannedChunks`).
    var scannedChunks: [String: ScannedChunks] = [:]
    /// New notes uploaded while the scan runs (`EarlyUploads`), on a folder's first sync into
    /// an account with nothing to pull; `nil` otherwise, and once the scan is over.
    var early: EarlyUploads?

    init(engine: SyncEngine, apply: ApplyPhase) {
        self.engine = engine
        self.apply = apply
    }

    /// Takes what the scan kept for the push: the texts it read (held once, here, so each
    /// text's memory goes when the push takes it) and the chunk digests of large attachments.
    mutating func takeScanned(_ snapshot: inout LocalSnapshot) {
        scannedTexts = snapshot.texts
        scannedChunks = snapshot.chunkDigests
        snapshot.texts = .none
    }
}

extension PushPhase {
    /// One operation prepared from the folder, with what it was made from.
    struct Upload {
        enum Kind { case create, update, delete }
        var kind: Kind
        var operation: BatchOperation
        var diskPath: String?
        var stat: FileStat?
        var hash: String?
        /// `operation` as sent (`wireJSON()`), written once, when the batch is filled.
        var json: [UInt8] = []
    }

    /// A batch on its way: the uploads it carries, how far through the round's work it
    /// reaches, and the server's answer to come.
    struct SentBatch {
        var chunk: [Upload]
        var reach: Int
        /// One answer per request: one, or one per operation when the server found the batch too large.
        var results: Task<[BatchResponse], any Error>
    }

    /// How full a batch being filled is: at most `batchOperations` uploads and a request body of
    /// at most `batchBytes` as written on the wire; an upload larger than that alone goes alone.
    struct BatchFill {
        let options: SyncOptions
        private(set) var count = 0
        private var bytes = BatchRequest.wireJSONFraming

        init(_ options: SyncOptions) {
            self.options = options
        }

        /// Whether no further upload may join.
        var isFull: Bool { count >= options.batchOperations }

        /// Adds an upload written in `json` bytes if it fits (the first always does); `false`,
        /// adding nothing, when it does not.
        mutating func add(json: Int) -> Bool {
            // The operation and the comma after it.
            guard !isFull, count == 0 || bytes + json + 1 <= options.batchBytes else { return false }
            count += 1
            bytes += json + 1
            return true
        }
    }

    /// Uploads local changes in rounds; a stale revision (412) is reconciled and retried in the
    /// next round. Files are read batch by batch, so memory stays bounded however many notes
    /// change, and the next batches are read and sent while the server applies earlier ones, so
    /// client and server work at once (`batchesInFlight` at most; each note is in one).
    /// Returns whether anything was sent.
    mutating func push(in run: inout SyncRun) async throws -> Bool {
        var reserved = try reserveIDs(in: &run)
        // Reservations not yet recorded belong to notes never sent: recorded now whatever ends
        // the push, so the index tracks every file the folder state does (a failure here only
        // leaves such files new to the next sync, which reserves them again).
        defer { try? reserved.recordAll(of: run.state, in: engine) }
        var sent = false
        for _ in 1...engine.options.maxUploadRounds {
            var work = try pendingUploads(in: &run)
            if work.isEmpty {
                try reserved.recordAll(of: run.state, in: engine)
                return sent
            }
            sent = true
            try await uploadContents(for: work, in: &run)
            work.removeAll { skippedUploads.contains($0) }
            var next = 0
            var carried: Upload?
            var inFlight: [SentBatch] = []
            defer { for batch in inFlight { batch.results.cancel() } }
            while true {
                let chunk = nextChunk(of: work, from: &next, carried: &carried, in: &run)
                if chunk.isEmpty { break }
                // Its ids are in the index before the batch leaves (docs/architecture.md, Sync invariants 7).
                try reserved.record(chunk.lazy.map(\.operation.id), of: run.state, in: engine)
                try await send(chunk, reach: next, of: work.count, window: &inFlight, in: &run)
            }
            try await takeIn(&inFlight, of: work.count, in: &run)
            // Later rounds see the index as a push that recorded every reservation first did.
            try reserved.recordAll(of: run.state, in: engine)
        }
        for id in try pendingUploads(in: &run) {
            let path = run.state[id]?.row.base.path ?? id.value
            run.report.warnings.append("\(path) kept changing on the server; it is synced next time")
        }
        return sent
    }

    /// The next batch of `work` from `next` on (advanced past it): at most
    /// `batchOperations` uploads and a request body of at most `batchBytes` as written on the
    /// wire, each operation written here once (`Upload.json`, sent as written), files read now;
    /// an upload larger than that alone goes alone. Empty once `work` is done. The upload that
    /// did not fit is `carried` into the next batch (it is `work[next]`), not read or written again.
    private mutating func nextChunk(of work: [NoteID], from next: inout Int, carried: inout Upload?, in run: inout SyncRun) -> [Upload] {
        var chunk: [Upload] = []
        var fill = BatchFill(engine.options)
        while next < work.count, !fill.isFull {
            guard var upload = carried.take() ?? prepare(work[next], in: &run) else {
                next += 1
                continue
            }
            if upload.json.isEmpty { upload.json = upload.operation.wireJSON() }
            guard fill.add(json: upload.json.count) else {
                carried = upload
                break
            }
            chunk.append(upload)
            next += 1
        }
        return chunk
    }

    /// Sends `chunk` on its own task, so the next one is read meanwhile, keeping at most
    /// `batchesInFlight` batches out: once `inFlight` is full, the oldest answer is taken in first.
    /// - Parameter successesOnly: take in only plain successes (`EarlyUploads`).
    mutating func send(_ chunk: [Upload], reach: Int, of total: Int, window inFlight: inout [SentBatch],
                       successesOnly: Bool = false, in run: inout SyncRun) async throws {
        let remote = engine.remote
        let results = Task { [chunk] in try await PushPhase.send(chunk, to: remote) }
        inFlight.append(SentBatch(chunk: chunk, reach: reach, results: results))
        if inFlight.count >= max(engine.options.batchesInFlight, 1) {
            try await handle(inFlight.removeFirst(), of: total, successesOnly: successesOnly, in: &run)
        }
    }

    /// Takes in every answer still out, oldest first.
    mutating func takeIn(_ inFlight: inout [SentBatch], of total: Int, successesOnly: Bool = false, in run: inout SyncRun) async throws {
        while !inFlight.isEmpty {
            try await handle(inFlight.removeFirst(), of: total, successesOnly: successesOnly, in: &run)
        }
    }

    /// Waits for `batch`'s answer and takes in each result, then records them, with the cursor
    /// when the batch's span extends the chain of own writes (`OwnWriteChain`).
    /// - Parameter successesOnly: take in only plain successes; the other uploads stay as they
    ///   were (`EarlyUploads`: reserved, and sent again by the push).
    private mutating func handle(_ batch: SentBatch, of total: Int, successesOnly: Bool, in run: inout SyncRun) async throws {
        let answers = try await batch.results.value
        var changes: [IndexChange] = []
        for (upload, result) in zip(batch.chunk, answers.flatMap(\.results)) where !successesOnly || [200, 201].contains(result.status) {
            try await handle(result, of: upload, changes: &changes, in: &run)
        }
        // Merges and conflict copies written while handling results made durable before the
        // index records them. Only a result other than a plain success writes in the folder:
        // an upload of new notes neither syncs the filesystem nor drops the kept folders.
        if !successesOnly, !changes.isEmpty, answers.contains(where: { $0.results.contains { ![200, 201].contains($0.status) } }) { engine.files.flush() }
        var cursor: String?
        for answer in answers {
            if let reach = ownWrites.add(answer) { cursor = reach }
        }
        try engine.commit(changes, cursor: cursor)
        engine.options.progress?("uploading", batch.reach, total)
    }

    /// Sends one batch. When the server finds the request too large (JSON escaping can make a
    /// note far bigger on the wire than on disk), the operations go one by one, and one that is
    /// too large alone fails alone.
    private static func send(_ chunk: [Upload], to remote: any SyncRemote) async throws -> [BatchResponse] {
        do {
            return [try await remote.batch(chunk.map(\.operation), written: chunk.map(\.json))]
        } catch ClientError.status(let error) where error.status == 413 {
            guard chunk.count > 1 else {
                return [BatchResponse(results: [BatchResult(id: chunk[0].operation.id, status: 413,
                                                            error: .init(code: error.code, message: error.message))])]
            }
            var answers: [BatchResponse] = []
            for upload in chunk { answers += try await send([upload], to: remote) }
            return answers
        }
    }

    /// Gives every new file a note id, tracked in the folder state at once; each id is recorded
    /// in the index before a batch carrying it is sent (`Reservations.record`), so a batch
    /// retried after a crash creates the same notes again, not duplicates (docs/architecture.md, Sync invariants 7).
    ///
    /// Recorded a slice at a time as the batches need them rather than all before the first
    /// batch: writing 10,000 rows held the first request back while the server had nothing to
    /// do; the slices are written while the server applies earlier batches.
    private func reserveIDs(in run: inout SyncRun) throws -> Reservations {
        guard run.state.hasUntracked else { return Reservations(ids: []) }
        let files = run.state.takeUntracked()
        run.state.reserveCapacity(forMore: files.count)
        var ids: [NoteID] = []
        ids.reserveCapacity(files.count)
        for file in files {
            let row = IndexRow(base: SyncBase(id: NoteID(), path: file.path, rev: 0, hash: file.hash), diskPath: file.diskPath, stat: file.stat)
            run.state.track(TrackedNote(row: row, local: .clean, diskPath: file.diskPath, stat: file.stat))
            ids.append(row.base.id)
        }
        return Reservations(ids: ids)
    }

    /// Ids reserved for new files (`reserveIDs`) and how many of them the index holds: the
    /// first `recorded`.
    ///
    /// A reservation is recorded as the folder state holds its note when it is recorded (a
    /// change made meanwhile, such as an attachment's metadata forgotten, is not undone; a
    /// note untracked meanwhile is not recorded), which is what recording every reservation
    /// first and each change after it left.
    struct Reservations {
        /// In id order: new ids sort in the order they were made (`NoteID()`), so this is
        /// nearly the order they were given, and the push sends notes in id order.
        private let ids: [NoteID]
        private(set) var recorded = 0

        /// Rows recorded at least at a time: a commit per batch would cost a transaction each.
        static let slice = 256

        init(ids: [NoteID]) {
            self.ids = ids.sorted()
        }

        /// Records in the index every reservation up to the greatest of `sending` not recorded
        /// yet (and at least `slice` more), before a batch carrying `sending` is sent.
        mutating func record(_ sending: some Sequence<NoteID>, of state: FolderState, in engine: SyncEngine) throws {
            guard recorded < ids.count, let greatest = sending.max(), ids[recorded] <= greatest else { return }
            var end = recorded
            while end < ids.count, ids[end] <= greatest { end += 1 }
            try record(upTo: min(ids.count, max(end, recorded + Self.slice)), of: state, in: engine)
        }

        /// Records every reservation not recorded yet.
        mutating func recordAll(of state: FolderState, in engine: SyncEngine) throws {
            try record(upTo: ids.count, of: state, in: engine)
        }

        private mutating func record(upTo end: Int, of state: FolderState, in engine: SyncEngine) throws {
            guard recorded < end else { return }
            var changes: [IndexChange] = []
            changes.reserveCapacity(end - recorded)
            for id in ids[recorded ..< end] {
                if let note = state[id] { changes.append(.upsert(note.row)) }
            }
            try engine.commit(changes)
            recorded = end
        }
    }

    /// The notes with something to upload, in a stable order; drops unconfirmed creates whose
    /// file is gone (nothing to send).
    private func pendingUploads(in run: inout SyncRun) throws -> [NoteID] {
        var work: [NoteID] = []
        var dropped: [IndexChange] = []
        // Sorted after filtering: a no-op sync of 10,000 notes spent 4% of its time sorting ids
        // of clean notes only to skip them.
        var gone: [NoteID] = []
        for (id, note) in run.state.tracked where !note.frozen && !skippedUploads.contains(id) {
            switch SyncPlanner.upload(base: note.row.base, local: note.local, evicted: note.evicted) {
            case .drop: gone.append(id)
            case .send: work.append(id)
            case .none: continue
            }
        }
        for id in gone.sorted() { run.untrack(id, changes: &dropped) }
        try engine.commit(dropped)
        return work.sorted()
    }

    /// The operation for note `id`, its file read now; `nil` (with a warning) when the file
    /// cannot be sent.
    private mutating func prepare(_ id: NoteID, in run: inout SyncRun) -> Upload? {
        guard let note = run.state[id] else { return nil }
        let base = note.row.base
        if base.rev > 0, note.local == .missing {
            return Upload(kind: .delete, operation: BatchOperation(op: .delete, id: id, ifMatch: base.rev))
        }
        guard let disk = note.diskPath else { return nil }
        let path: String = if case .changed(let changedPath, _) = note.local { changedPath } else { base.path }
        if EntryKind(path: path) == .attachment {
            // The content is on the server already (`uploadContents`): the put names it by hash.
            let hash = uploadHash(of: note)
            let operation = base.rev == 0
                ? BatchOperation(op: .put, id: id, path: path, ifNoneMatch: "*", kind: .attachment, hash: hash)
                : BatchOperation(op: .put, id: id, path: path, ifMatch: base.rev, kind: .attachment, hash: hash)
            return Upload(kind: base.rev == 0 ? .create : .update, operation: operation, diskPath: disk,
                          stat: note.stat, hash: hash)
        }
        guard let read = readText(disk, in: &run) else {
            skippedUploads.insert(id)
            return nil
        }
        let operation = base.rev == 0
            ? BatchOperation(op: .put, id: id, path: path, content: read.text, ifNoneMatch: "*")
            : BatchOperation(op: .put, id: id, path: path, content: read.text, ifMatch: base.rev)
        return Upload(kind: base.rev == 0 ? .create : .update, operation: operation, diskPath: disk,
                      stat: read.stat, hash: read.hash)
    }

    /// The text of the note file at `disk` as it is now, its hash and metadata: the scan's read
    /// when the file's metadata is still what that read saw (one `lstat`), else read again.
    /// `nil` (with a warning) when it cannot be read or is not UTF-8 text.
    private mutating func readText(_ disk: String, in run: inout SyncRun) -> ScannedTexts.Text? {
        if let kept = scannedTexts.take(disk), ScannedTexts.isUnchanged(engine.folder.root + "/" + disk, since: kept.stat) { return kept }
        let read: (bytes: [UInt8], stat: FileStat)
        do {
            read = try engine.files.read(disk)
        } catch {
            run.report.warnings.append("could not read \(disk): \(error)")
            return nil
        }
        guard let text = String(validating: read.bytes, as: UTF8.self) else {
            run.report.warnings.append("left alone \(disk): not UTF-8 text")
            return nil
        }
        return ScannedTexts.Text(text: text, hash: SHA256.hex(of: read.bytes), stat: read.stat)
    }
}
