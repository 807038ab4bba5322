import NotesCore

/// New notes uploaded while the scan still reads the folder: a folder's first sync into an
/// account with nothing to pull.
///
/// On a first upload the server idled until the scan had read, hashed and recorded every file,
/// and the client's core then waited on the server's answers: with 10,000 notes of ~2 KB the
/// first batch left about 370 ms into a sync of about a second. When the index holds no rows
/// and the changes feed's first page is empty and the last, nothing on the server is to be
/// applied here first, and a new note can collide only with a write made meanwhile, which the
/// creates' precondition (`if_none_match: "*"`) catches just as it does after a pull. Then each
/// new note the scan reads is sent once a batch of them is full, its id reserved in the index
/// before it is sent (docs/architecture.md, Sync invariants 7).
///
/// It does what the push would do with the same notes, in a narrower case:
/// - A note is taken only as the push would send it from the scan's read: a text kept for the
///   push (`ScannedTexts.keep`: last modified more than the racy margin before the scan). It is
///   sent as read, milliseconds later, and its row records that read's metadata, so a save after
///   the read gives the file a modification time the row does not hold (the file was older than
///   the margin, now is not), and the next scan reads it again: the push's `lstat` before
///   sending a kept text, which may have waited through the whole scan and pull, is not needed.
/// - Only plain successes are taken in while the scan runs. Any other result (a path another
///   device took meanwhile, a refusal) leaves the note reserved and unconfirmed, and the push
///   after the scan sends it again, with the whole folder's state, to be settled as any other.
/// - Each answer's feed span extends the chain of own writes from the empty page's cursor, as
///   the push's do, so the cursor moves over the batches in the same transaction as their rows.
/// - Memory stays bounded: at most `reserveGroup` notes wait, plus the batches in flight.
struct EarlyUploads {
    /// Notes taken are reserved (their ids recorded, one transaction) this many at a time.
    static let reserveGroup = 512

    /// Taken, not yet reserved: each note's row (revision 0) and its create.
    var waiting: [(row: IndexRow, upload: PushPhase.Upload)] = []
    /// Reserved, not yet sent.
    var ready: [PushPhase.Upload] = []
    var inFlight: [PushPhase.SentBatch] = []
    /// Notes sent so far, for progress (the folder's total is not known before the scan ends).
    var sent = 0
    /// The path key of every new note offered, taken or not: the first file listed at a key is
    /// the one the folder's state keeps (`FolderState(snapshot:)`), so only it may be taken.
    var offeredKeys = Set<String>()
    /// The path keys and paths of the notes taken.
    var takenKeys = Set<String>()
    var takenPaths: [String] = []
}

extension PushPhase {
    /// Starts early uploads when the folder's index holds no rows and the server has nothing to
    /// pull: applies the (empty) first page, storing its cursor, and starts the chain of own
    /// writes from it. Returns whether early uploads are on. A dry run never uploads early.
    mutating func startEarlyUploads(indexIsEmpty: Bool, firstPage: PrefetchedPage, pull: PullPhase,
                                    in run: inout SyncRun) async throws -> Bool {
        guard indexIsEmpty, engine.options.uploadsEarly, !engine.options.dryRun, let page = try? await firstPage.page.value,
              page.changes.isEmpty, !page.hasMore else { return false }
        guard try await pull.pullResyncing(metadataFirst: false, firstPage: firstPage, in: &run) else { return false }
        ownWrites = OwnWriteChain(from: try engine.index.cursor())
        early = EarlyUploads()
        return true
    }

    /// Cancels the answers of early uploads still out (a scan or an upload that threw).
    func cancelEarlyUploads() {
        early?.inFlight.forEach { $0.results.cancel() }
    }

    /// Offers a new note the scan just read (its file, and its text as kept for the push).
    /// Returns whether it was taken for an early upload; if not, the scan records it as usual.
    mutating func takeEarly(_ file: UntrackedFile, _ text: ScannedTexts.Text, in run: inout SyncRun) async throws -> Bool {
        guard early != nil else { return false }
        let pathKey = run.key(file.path)
        guard early?.offeredKeys.insert(pathKey).inserted == true else { return false }
        let operation = BatchOperation(op: .put, id: NoteID(), path: file.path, content: text.text, ifNoneMatch: "*")
        var upload = Upload(kind: .create, operation: operation, diskPath: file.diskPath, stat: text.stat, hash: text.hash)
        upload.json = operation.wireJSON()
        let row = IndexRow(base: SyncBase(id: operation.id, path: file.path, rev: 0, hash: file.hash), diskPath: file.diskPath, stat: file.stat)
        early?.waiting.append((row, upload))
        early?.takenKeys.insert(pathKey)
        early?.takenPaths.append(file.path)
        if (early?.waiting.count ?? 0) >= EarlyUploads.reserveGroup { try await sendEarly(final: false, in: &run) }
        return true
    }

    /// Once the scan is over: sends what is left and takes in every answer, then makes the
    /// folder's state from `snapshot` with the notes uploaded early tracked in it. The report's
    /// local changes list those notes as new, as they would without early uploads.
    mutating func finishEarlyUploads(_ snapshot: inout LocalSnapshot, in run: inout SyncRun) async throws {
        guard early != nil else { return }
        try await sendEarly(final: true, in: &run)
        guard let done = early else { return }
        early = nil
        run.report.local = (run.report.local + done.takenPaths.map { .init(change: .new, path: $0) })
            .sorted { ($0.path, $0.change.rawValue) < ($1.path, $1.change.rawValue) }
        // A later file at a taken note's key is left out, as `FolderState(snapshot:)` keeps only
        // the first listed at a key.
        snapshot.untracked.removeAll { done.takenKeys.contains(run.key($0.path)) }
        if snapshot.tracked.isEmpty {
            snapshot.tracked = run.state.tracked  // as always here (the index held no rows): shared, not copied
        } else {
            snapshot.tracked.merge(run.state.tracked) { scanned, _ in scanned }
        }
    }

    /// Reserves the waiting notes, then sends every full batch of the reserved ones (every
    /// one, full or not, when `final`), taking in the oldest answer whenever `batchesInFlight`
    /// are out; when `final`, takes in every answer.
    private mutating func sendEarly(final: Bool, in run: inout SyncRun) async throws {
        guard let taken = early?.waiting, var ready = early?.ready else { return }
        early?.waiting = []
        early?.ready = []
        if !taken.isEmpty {
            var changes: [IndexChange] = []
            changes.reserveCapacity(taken.count)
            run.state.reserveCapacity(forMore: taken.count)
            for (row, upload) in taken {
                run.track(TrackedNote(row: row, local: .clean, diskPath: row.diskPath, stat: row.stat), changes: &changes)
                ready.append(upload)
            }
            try engine.commit(changes)
        }
        var next = 0
        var inFlight = early?.inFlight ?? []
        early?.inFlight = []
        defer { early?.inFlight = inFlight }  // cancelled by `run` if this throws
        while let chunk = Self.earlyChunk(of: ready, from: &next, final: final, options: engine.options) {
            early?.sent += chunk.count
            try await send(chunk, reach: early?.sent ?? 0, of: 0, window: &inFlight, successesOnly: true, in: &run)
        }
        early?.ready = Array(ready[next...])
        if final { try await takeIn(&inFlight, of: 0, successesOnly: true, in: &run) }
    }

    /// The next batch of `ready` from `next` on (advanced past it), filled as the push fills one
    /// (`BatchFill`); `nil` when what is left is not a full batch, unless `final`.
    private static func earlyChunk(of ready: [Upload], from next: inout Int, final: Bool, options: SyncOptions) -> [Upload]? {
        var end = next
        var fill = BatchFill(options)
        while end < ready.count, fill.add(json: ready[end].json.count) { end += 1 }
        guard end > next, fill.isFull || end < ready.count || final else { return nil }
        defer { next = end }
        return Array(ready[next..<end])
    }
}
