import Foundation
import NotesCore

/// Runs one two-way sync of a bound folder: scan, pull the changes feed page by page, push local
/// changes in batches, then catch the cursor up over its own writes: from the batches' answers
/// when they chain from the cursor (`OwnWriteChain`), else by reading the feed again. A folder's
/// first sync into an account with nothing to pull sends its new notes while the scan reads
/// (`EarlyUploads`).
///
/// Every decision comes from `SyncPlanner`. The engine holds only what a sync depends on (the
/// folder, its files, the index, the remote, the options, the clock); what one sync learns and
/// changes is a value, `SyncRun`, handed through the phases: `PullPhase` reads the changes feed,
/// `ApplyPhase` carries the planner's decisions out with `SafeFiles`, `PushPhase` sends local
/// changes. Progress is recorded in the index after each page or batch, so a sync killed at any
/// point resumes without loss or duplicates (docs/architecture.md, Sync invariants 7).
///
/// A dry run (`notes status`, `--dry-run`) is this same run against `DryRunFiles` and
/// `DryRunRemote`, with the index left alone, so its report is the sync's (docs/architecture.md, Sync invariants 13).
///
/// One engine runs one sync in one task; it is not shared across threads.
struct SyncEngine {
    let folder: SyncFolder
    let files: any FolderFiles
    let index: SyncIndex
    let remote: any SyncRemote
    /// The remote of a dry run, seeded with the index when the run starts.
    private let dryRemote: DryRunRemote?
    let options: SyncOptions
    /// Milliseconds since 1970 for conflict-copy names only; never compared (docs/architecture.md, Sync invariants 5).
    let now: () -> Int64

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
    }

    /// A run of this engine's folder, not started yet.
    func newRun() -> SyncRun {
        SyncRun(folder: folder, dryRun: options.dryRun)
    }

    /// Runs the sync on a run of its own. The caller holds the folder's lock.
    /// - Throws: as `run(_:walk:)`.
    func run(walk: ThreadWork<FolderWalker.Listing>? = nil) async throws -> SyncReport {
        var run = newRun()
        return try await self.run(&run, walk: walk)
    }

    /// Runs the sync on `outcome`, a run not started yet (`newRun`). The caller holds the
    /// folder's lock.
    /// - Throws: `MassDeleteRefusal` from the guard, `FolderError` for unusable folders; network
    ///   errors as they come. After a throw, `outcome.report.local` still says what changed here.
    /// - Parameter walk: the walk of this folder, when the caller started it earlier (the walk
    ///   is the longest part of a no-op sync; the sooner it starts, the sooner the sync ends).
    func run(_ outcome: inout SyncRun, walk: ThreadWork<FolderWalker.Listing>? = nil) async throws -> SyncReport {
        // The scan hands new notes to the push from a closure (early uploads), which cannot
        // change an inout parameter: the run is a local value until the sync ends or throws.
        var run = outcome
        defer { outcome = run }
        if !options.dryRun { clearScratch() }
        let walk = walk ?? LocalScan.startWalk(of: folder)
        // A dry run's remote answers from the index's rows, so it learns them before it is asked.
        let seededRows = try dryRemote.map { dryRemote in
            let rows = try index.rows()
            dryRemote.seed(rows)
            return rows
        }
        let remote = self.remote
        let apply = ApplyPhase(engine: self)
        let pull = PullPhase(engine: self, apply: apply)
        var push = PushPhase(engine: self, apply: apply)
        // The first changes page, asked for now: the request and the server's answer overlap the
        // index read and the scan (on a no-op of 10,000 notes, most of the time) instead of
        // following them. The pull takes it only if the cursor has not moved meanwhile (nothing
        // here moves it).
        let cursor = try index.cursor(), pageSize = options.pageSize
        let firstPage = PrefetchedPage(cursor: cursor, page: Task { try await remote.changes(since: cursor, limit: pageSize, includeContent: true) })
        run.report.changesRequests += 1
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
                if try await finishUnchanged(listing, firstPage: firstPage, pull: pull, in: &run) { return run.report }
            }
            rows = table.indexRows()
        }
        run.ignore = folder.ignoreRules()
        defer { push.cancelEarlyUploads() }  // a scan or an upload that throws
        let uploadsEarly = try await push.startEarlyUploads(indexIsEmpty: rows.isEmpty, firstPage: firstPage, pull: pull, in: &run)
        var scan = LocalScan(folder: folder, files: SafeFiles(root: folder.root, scratch: folder.scratchDirectory),
                             ignore: run.ignore, limits: { await remote.limits() })
        if uploadsEarly { scan.takeNew = { file, text in try await push.takeEarly(file, text, in: &run) } }
        scan.takesChunkDigests = !options.dryRun
        var snapshot = try await scan.scan(rows: consume rows) { try await walk.value }
        if let limits = snapshot.limits { run.limits = limits }
        run.report.warnings += snapshot.warnings
        run.report.skipped += snapshot.skipped
        run.report.filesRead = snapshot.filesRead
        run.report.local = snapshot.localChanges
        try await push.finishEarlyUploads(&snapshot, in: &run)
        push.takeScanned(&snapshot)
        run.state = FolderState(snapshot: snapshot, caseInsensitive: folder.config.caseInsensitive)
        try checkLocalMassDelete(in: &run)
        try refreshMetadata(snapshot.cleanOnCloserLook, in: &run)
        // Early uploads applied the feed, all of it an empty page, before the scan, and started
        // the chain of own writes there.
        if !uploadsEarly {
            let caughtUp = try await pull.pullResyncing(metadataFirst: false, firstPage: firstPage, in: &run)
            // The chain starts only where the feed was read to its end: a pull that stopped early (a
            // page left for next time, a resync cut short) left changes after the cursor unapplied.
            push.ownWrites = OwnWriteChain(from: caughtUp && !options.dryRun ? try index.cursor() : nil)
        }
        let pushed = try await push.push(in: &run)
        // Read back only when the answers' spans do not vouch for every write of the push.
        if pushed && !options.dryRun && !push.ownWrites.coversPush { try await pull.pullResyncing(metadataFirst: true, in: &run) }
        return run.report
    }

    /// Finishes a sync of a folder found unchanged (`IndexTable.isUnchanged`) if the server has
    /// nothing new either: its first changes page is empty and the last. Nothing then needs the
    /// folder's state, which is never made (a string, a row and a table entry per note: most of
    /// what such a sync did): the scan would find every note clean, nothing missing and nothing
    /// new, so there is nothing to push, and the pull of an empty page reads no note; it stores
    /// the page's cursor if it moved, as always.
    /// - Returns: `false`, having changed nothing, when the server has changes or its answer is
    ///   an error: the general sync runs (and meets the same answer).
    private func finishUnchanged(_ listing: FolderWalker.Listing, firstPage: PrefetchedPage, pull: PullPhase,
                                 in run: inout SyncRun) async throws -> Bool {
        guard let page = try? await firstPage.page.value, page.changes.isEmpty, !page.hasMore else { return false }
        run.report.warnings += LocalScan.warnings(for: listing)
        try await pull.pullResyncing(metadataFirst: false, firstPage: firstPage, in: &run)
        return true
    }

    /// Stops before deleting too much of the server because files vanished here (an emptied or
    /// unmounted folder), unless `--allow-mass-delete`.
    private func checkLocalMassDelete(in run: inout SyncRun) throws {
        let deleting = run.state.tracked.values.filter { $0.local == .missing && $0.row.base.rev > 0 }.count
        try guardMassDelete(.local, deleting: deleting, in: &run)
    }

    /// The one mass-delete guard (docs/architecture.md, Sync invariants 9), for either side: throws `MassDeleteRefusal`, with
    /// the count in the report, when `deleting` of the confirmed notes is too many. A dry run
    /// throws too, so `notes status` says the sync will stop and with which count.
    func guardMassDelete(_ side: MassDeleteCheck.Side, deleting: Int, in run: inout SyncRun) throws {
        let total = run.confirmedCount
        guard !options.allowMassDelete, SyncPlanner.isMassDelete(deleting: deleting, of: total) else { return }
        run.report.massDelete = MassDeleteCheck(side: side, deleting: deleting, total: total, folder: folder.root)
        throw MassDeleteRefusal(report: run.report)
    }

    /// Records index changes (and a new cursor); a dry run records nothing.
    func commit(_ changes: [IndexChange], cursor: String? = nil) throws {
        guard !options.dryRun else { return }
        try index.commit(changes, cursor: cursor)
    }

    /// Records the metadata of files found unchanged by content (touched, or copied back), so
    /// the next scan recognises them without reading. Only the notes the scan looked at closely
    /// can need it: one found clean at a glance has the index's metadata and name already.
    private func refreshMetadata(_ candidates: [NoteID], in run: inout SyncRun) throws {
        var changes: [IndexChange] = []
        for id in candidates {
            guard var note = run.state[id], note.local == .clean, !note.frozen else { continue }
            guard let disk = note.diskPath, let stat = note.stat, stat != note.row.stat || disk != note.row.diskPath else { continue }
            note.row.stat = stat
            note.row.diskPath = disk
            run.state.track(note)
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
}

@available(*, unavailable)
extension SyncEngine: Sendable {}
