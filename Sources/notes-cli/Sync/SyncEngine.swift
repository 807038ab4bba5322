import Foundation
import NotesCore

/// Runs one two-way sync of a bound folder: scan, pull the changes feed page by page, push local
/// changes in batches, then catch the cursor up over its own writes.
///
/// Every decision comes from `SyncPlanner`; this type gathers the states and carries the
/// decisions out with `SafeFiles`, recording progress in the index after each page or batch so
/// a sync killed at any point resumes without loss or duplicates (DESIGN 4.7).
///
/// One engine runs one sync in one task; it is not shared across threads.
final class SyncEngine {
    let folder: SyncFolder
    let files: SafeFiles
    let index: SyncIndex
    let remote: any SyncRemote
    let options: SyncOptions
    /// Milliseconds since 1970 for conflict-copy names only; never compared (DESIGN 4.5).
    let now: () -> Int64

    var snapshot = LocalSnapshot()
    /// The tracked note whose file is at each path key (case-folded on case-insensitive disks).
    var trackedByKey: [String: NoteID] = [:]
    /// The untracked files by path key.
    var untrackedByKey: [String: UntrackedFile] = [:]
    var report = SyncReport()
    /// Notes whose upload failed for a reason retrying cannot fix; left for the next sync.
    var skippedUploads = Set<NoteID>()
    /// The rules of `.notesignore`, read at the start of the sync.
    var ignore = IgnoreRules()
    /// During a full resync, every note id the feed mentioned.
    var seenInFeed: Set<NoteID>?

    init(folder: SyncFolder, index: SyncIndex, remote: any SyncRemote, options: SyncOptions,
         now: @escaping () -> Int64 = { WireTime.nowMilliseconds() }) {
        self.folder = folder
        self.files = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        self.index = index
        self.remote = remote
        self.options = options
        self.now = now
        report.dryRun = options.dryRun
    }

    /// Runs the sync. The caller holds the folder's lock.
    /// - Throws: `CLIError` for the mass-delete guard and unusable folders; network errors as they come.
    func run() async throws -> SyncReport {
        clearScratch()
        let rows = try index.rows()
        ignore = folder.ignoreRules()
        snapshot = try LocalScan(folder: folder, files: files, ignore: ignore).scan(rows: rows)
        report.warnings += snapshot.warnings
        report.filesRead = snapshot.filesRead
        rebuildKeys()
        try checkLocalMassDelete()
        try refreshMetadata()
        try await pullResyncing(metadataFirst: false)
        let pushed = try await push()
        if pushed && !options.dryRun { try await pullResyncing(metadataFirst: true) }
        report.filesRead = snapshot.filesRead
        return report
    }

    /// The path key for lookups: case-folded where the filesystem folds case.
    func key(_ path: String) -> String {
        LocalScan.key(LocalScan.nfc(path), caseInsensitive: folder.config.caseInsensitive)
    }

    /// Recomputes the path lookups from the snapshot.
    func rebuildKeys() {
        trackedByKey = [:]
        for (id, note) in snapshot.tracked {
            if let disk = note.diskPath { trackedByKey[key(disk)] = id }
        }
        untrackedByKey = Dictionary(snapshot.untracked.map { (key($0.path), $0) }, uniquingKeysWith: { first, _ in first })
        snapshot.untracked = []  // from here on `untrackedByKey` is the one list
    }

    /// Tracked notes that exist on the server (a create not yet confirmed does not count).
    var confirmedCount: Int { snapshot.tracked.values.reduce(0) { $0 + ($1.row.base.rev > 0 ? 1 : 0) } }

    /// Stops before deleting too much of the server because files vanished here (an emptied or
    /// unmounted folder), unless `--allow-mass-delete`.
    private func checkLocalMassDelete() throws {
        let deleting = snapshot.tracked.values.filter { $0.local == .missing && $0.row.base.rev > 0 }.count
        guard !options.allowMassDelete, SyncPlanner.isMassDelete(deleting: deleting, of: confirmedCount) else { return }
        throw CLIError.failure("""
            this sync would delete \(deleting) of \(confirmedCount) notes on the server because their files are gone from \
            \(folder.root) (an emptied or unmounted folder?); nothing was changed. If you meant it, run again with --allow-mass-delete
            """)
    }

    /// Records the metadata of files found unchanged by content (touched, or copied back), so
    /// the next scan recognises them without reading.
    private func refreshMetadata() throws {
        guard !options.dryRun else { return }
        var changes: [IndexChange] = []
        for (id, var note) in snapshot.tracked where note.local == .clean && !note.frozen {
            guard let disk = note.diskPath, let stat = note.stat, stat != note.row.stat || disk != note.row.diskPath else { continue }
            note.row.stat = stat
            note.row.diskPath = disk
            snapshot.tracked[id] = note
            changes.append(.upsert(note.row))
        }
        try index.commit(changes)
    }

    /// Removes temporary files a killed sync left in `.notes/tmp` (never a note: notes are
    /// only ever renamed out of it whole).
    private func clearScratch() {
        try? FileManager.default.createDirectory(atPath: folder.scratchDirectory, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.scratchDirectory)) ?? [] {
            unlink(folder.scratchDirectory + "/" + name)
        }
    }

    /// A free conflict-copy path for `path`, made on this device now.
    func conflictPath(for path: String) throws -> String {
        for attempt in 1...1000 {
            let candidate = ConflictName.path(for: path, device: folder.config.device, millisecondsSinceEpoch: now(), attempt: attempt)
            let candidateKey = key(candidate)
            if trackedByKey[candidateKey] == nil, untrackedByKey[candidateKey] == nil, try files.occupant(candidate) == .none {
                return candidate
            }
        }
        throw CLIError.failure("cannot find a free name for a conflict copy of \(path)")
    }
}

@available(*, unavailable)
extension SyncEngine: Sendable {}
