import Foundation
import NotesCore

/// Runs one two-way sync of a bound folder: scan, pull the changes feed page by page, push local
/// changes in batches, then catch the cursor up over its own writes: from the batches' answers
/// when they chain from the cursor (`OwnWriteChain`), else by reading the feed again. A folder's
/// first sync into an account with nothing to pull sends its new notes while the scan reads
/// (`EarlyUploads`).
///
/// Every decision comes from `SyncPlanner`; this type gathers the states and carries the
/// decisions out with `SafeFiles`, recording progress in the index after each page or batch so
/// a sync killed at any point resumes without loss or duplicates (docs/architecture.md, Sync invariants 7).
///
/// A dry run (`notes status`, `--dry-run`) is this same run against `DryRunFiles` and
/// `DryRunRemote`, with the index left alone, so its report is the sync's (docs/architecture.md, Sync invariants 13).
///
/// One engine runs one sync in one task; it is not shared across threads.
final class SyncEngine {
    let folder: SyncFolder
    let files: any FolderFiles
    let index: SyncIndex
    let remote: any SyncRemote
    /// The remote of a dry run, seeded with the index when the run starts.
    private let dryRemote: DryRunRemote?
    let options: SyncOptions
    /// Milliseconds since 1970 for conflict-copy names only; never compared (docs/architecture.md, Sync invariants 5).
    let now: () -> Int64

    /// The folder's notes as the scan found them, changed as the sync goes. Never made when
    /// neither the folder nor the server changed (`finishUnchanged`).
    var state: FolderState
    var report = SyncReport()
    /// Notes whose upload failed for a reason retrying cannot fix; left for the next sync.
    var skippedUploads = Set<NoteID>()
    /// The rules of `.notesignore`, read at the start of the sync.
    var ignore = IgnoreRules()
    /// The server's limits as far as the scan learned them (the defaults until then).
    var limits = ResponseBudget.defaultLimits
    var noteLimit: Int { limits.maxNoteBytes }
    var attachmentLimits: AttachmentLimits { AttachmentLimits(limits) }
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

    init(folder: SyncFolder, index: SyncIndex, remote: any SyncRemote, options: SyncOptions,
         now: @escaping () -> Int64 = { WireTime.nowMilliseconds() }) {
        self.folder = folder
        let files = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        self.files = options.dryRun ? DryRunFiles(real: files) : files
        self.index = index
        dryRemote = options.dryRun ? DryRunRemote(base: remote) : nil
        self.remote = dryRemote ?? remote
        self.options = options
        self.now = now
        state = FolderState(caseInsensitive: folder.config.caseInsensitive)
        report.dryRun = options.dryRun
    }

    /// Runs the sync. The caller holds the folder's lock.
    /// - Throws: `MassDeleteRefusal` from the guard, `CLIError` for unusable folders; network
    ///   errors as they come. After a throw, `report.local` still says what changed here.
    /// - Parameter walk: the walk of this folder, when the caller started it earlier (the walk
    ///   is the longest part of a no-op sync; the sooner it starts, the sooner the sync ends).
    func run(walk: ThreadWork<FolderWalker.Listing>? = nil) async throws -> SyncReport {
        if !options.dryRun { clearScratch() }
        let walk = walk ?? LocalScan.startWalk(of: folder)
        // A dry run's remote answers from the index's rows, so it learns them before it is asked.
        let seededRows = try dryRemote.map { dryRemote in
            let rows = try index.rows()
            dryRemote.seed(rows)
            return rows
        }
        let remote = self.remote
        // The first changes page, asked for now: the request and the server's answer overlap the
        // index read and the scan (on a no-op of 10,000 notes, most of the time) instead of
        // following them. The pull takes it only if the cursor has not moved meanwhile (nothing
        // here moves it).
        let cursor = try index.cursor(), pageSize = options.pageSize
        let firstPage = PrefetchedPage(cursor: cursor, page: Task { try await remote.changes(since: cursor, limit: pageSize, includeContent: true) })
        report.changesRequests += 1
        defer { firstPage.page.cancel() }  // a scan or a guard that throws does not wait for it
        let rows: [IndexRow]
        if let seededRows {
            rows = seededRows
        } else {
            let table = try index.table()
            // What the check needs of the rows alone, made while the walk still runs.
            let order = table.rowsInPathOrder(caseInsensitive: folder.config.caseInsensitive)
            let listing = try await walk.value
            if let order, table.isUnchanged(by: listing, rowsInPathOrder: order) {
                if try await finishUnchanged(listing, firstPage: firstPage) { return report }
            }
            rows = table.indexRows()
        }
        ignore = folder.ignoreRules()
        defer { early?.inFlight.forEach { $0.results.cancel() } }  // a scan or an upload that throws
        let uploadsEarly = try await startEarlyUploads(indexIsEmpty: rows.isEmpty, firstPage: firstPage)
        var scan = LocalScan(folder: folder, files: SafeFiles(root: folder.root, scratch: folder.scratchDirectory),
                             ignore: ignore, limits: { await remote.limits() })
        if uploadsEarly { scan.takeNew = { [unowned self] file, text in try await takeEarly(file, text) } }
        scan.takesChunkDigests = !options.dryRun
        var snapshot = try await scan.scan(rows: consume rows) { try await walk.value }
        if let limits = snapshot.limits { self.limits = limits }
        report.warnings += snapshot.warnings
        report.skipped += snapshot.skipped
        report.filesRead = snapshot.filesRead
        report.local = snapshot.localChanges
        try await finishEarlyUploads(&snapshot)
        scannedTexts = snapshot.texts
        scannedChunks = snapshot.chunkDigests
        snapshot.texts = .none  // held once, so each text's memory goes when the push takes it
        state = FolderState(snapshot: snapshot, caseInsensitive: folder.config.caseInsensitive)
        try checkLocalMassDelete()
        try refreshMetadata(snapshot.cleanOnCloserLook)
        // Early uploads applied the feed, all of it an empty page, before the scan, and started
        // the chain of own writes there.
        if !uploadsEarly {
            let caughtUp = try await pullResyncing(metadataFirst: false, firstPage: firstPage)
            // The chain starts only where the feed was read to its end: a pull that stopped early (a
            // page left for next time, a resync cut short) left changes after the cursor unapplied.
            ownWrites = OwnWriteChain(from: caughtUp && !options.dryRun ? try index.cursor() : nil)
        }
        let pushed = try await push()
        // Read back only when the answers' spans do not vouch for every write of the push.
        if pushed && !options.dryRun && !ownWrites.coversPush { try await pullResyncing(metadataFirst: true) }
        return report
    }

    /// Finishes a sync of a folder found unchanged (`IndexTable.isUnchanged`) if the server has
    /// nothing new either: its first changes page is empty and the last. Nothing then needs the
    /// folder's state, which is never made (a string, a row and a table entry per note: most of
    /// what such a sync did): the scan would find every note clean, nothing missing and nothing
    /// new, so there is nothing to push, and the pull of an empty page reads no note; it stores
    /// the page's cursor if it moved, as always.
    /// - Returns: `false`, having changed nothing, when the server has changes or its answer is
    ///   an error: the general sync runs (and meets the same answer).
    private func finishUnchanged(_ listing: FolderWalker.Listing, firstPage: PrefetchedPage) async throws -> Bool {
        guard let page = try? await firstPage.page.value, page.changes.isEmpty, !page.hasMore else { return false }
        report.warnings += LocalScan.warnings(for: listing)
        try await pullResyncing(metadataFirst: false, firstPage: firstPage)
        return true
    }

    /// Lets go of the folder state (every tracked note's row) on a thread of its own, once the
    /// run is over and its report taken: a command exits right after, and freeing 10,000 notes'
    /// strings and tables one by one (~5 % of a no-op sync's CPU) need not delay it.
    func releaseState() {
        guard !state.tracked.isEmpty else { return }  // never made (an unchanged folder): nothing to free
        let state = self.state
        self.state = FolderState(caseInsensitive: folder.config.caseInsensitive)
        Thread { withExtendedLifetime(state) {} }.start()
    }

    /// The path key for lookups: case-folded where the filesystem folds case.
    func key(_ path: String) -> String { state.key(path) }

    /// Tracked notes that exist on the server (a create not yet confirmed does not count).
    var confirmedCount: Int { state.confirmedCount }

    /// Stops before deleting too much of the server because files vanished here (an emptied or
    /// unmounted folder), unless `--allow-mass-delete`.
    private func checkLocalMassDelete() throws {
        try guardMassDelete(.local, deleting: state.tracked.values.filter { $0.local == .missing && $0.row.base.rev > 0 }.count)
    }

    /// The one mass-delete guard (docs/architecture.md, Sync invariants 9), for either side: throws `MassDeleteRefusal`, with
    /// the count in the report, when `deleting` of the confirmed notes is too many. A dry run
    /// throws too, so `notes status` says the sync will stop and with which count.
    func guardMassDelete(_ side: MassDeleteCheck.Side, deleting: Int) throws {
        let total = confirmedCount
        guard !options.allowMassDelete, SyncPlanner.isMassDelete(deleting: deleting, of: total) else { return }
        report.massDelete = MassDeleteCheck(side: side, deleting: deleting, total: total, folder: folder.root)
        throw MassDeleteRefusal(report: report)
    }

    /// Records index changes (and a new cursor); a dry run records nothing.
    func commit(_ changes: [IndexChange], cursor: String? = nil) throws {
        guard !options.dryRun else { return }
        try index.commit(changes, cursor: cursor)
    }

    /// Lists a conflict copy just made, and records in the index why it was made (a dry run
    /// only lists it), so `notes conflicts` can tell the user later.
    func madeConflictCopy(_ copy: String, of path: String, reason: ConflictReason) throws {
        report.conflicts.append(SyncReport.Conflict(path: path, copy: copy, reason: reason))
        guard !options.dryRun else { return }
        try index.recordConflict(ConflictRecord(copy: copy, path: path, reason: reason, madeAt: now()))
    }

    /// Records the metadata of files found unchanged by content (touched, or copied back), so
    /// the next scan recognises them without reading. Only the notes the scan looked at closely
    /// can need it: one found clean at a glance has the index's metadata and name already.
    private func refreshMetadata(_ candidates: [NoteID]) throws {
        var changes: [IndexChange] = []
        for id in candidates {
            guard var note = state[id], note.local == .clean, !note.frozen else { continue }
            guard let disk = note.diskPath, let stat = note.stat, stat != note.row.stat || disk != note.row.diskPath else { continue }
            note.row.stat = stat
            note.row.diskPath = disk
            state.track(note)
            changes.append(.upsert(note.row))
        }
        try commit(changes)
    }

    /// Removes temporary files a killed sync left in `.notes/tmp` (never a note: notes are
    /// only ever renamed out of it whole), except partial attachment downloads of the last
    /// week, which the next download of the same content goes on from (`StagedFile(resuming:)`).
    private func clearScratch() {
        try? FileManager.default.createDirectory(atPath: folder.scratchDirectory, withIntermediateDirectories: true)
        let keepSince = time(nil) - 7 * 24 * 3600
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.scratchDirectory)) ?? [] {
            let path = folder.scratchDirectory + "/" + name
            var info = stat()
            if name.hasPrefix(StagedFile.partialPrefix), lstat(path, &info) == 0, info.st_mtim.tv_sec >= keepSince { continue }
            unlink(path)
        }
    }

    /// A free conflict-copy path for `path`, made on this device now.
    func conflictPath(for path: String) throws -> String {
        for attempt in 1...1000 {
            let candidate = EntryName.conflictPath(for: path, device: folder.config.device, millisecondsSinceEpoch: now(), attempt: attempt)
            if state.isFree(candidate), try files.occupant(candidate) == .none {
                return candidate
            }
        }
        throw CLIError.failure("cannot find a free name for a conflict copy of \(path)")
    }
}

@available(*, unavailable)
extension SyncEngine: Sendable {}
