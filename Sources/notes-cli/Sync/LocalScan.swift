import Foundation
import NotesCore

/// A tracked note as the scan found it: its index row, its file's state against the base, and
/// where its file is now.
struct TrackedNote: Sendable {
    var row: IndexRow
    var local: LocalState
    /// The file's path on disk now (after a rename, the new one); `nil` when missing.
    var diskPath: String?
    /// The file's metadata now; `nil` when missing.
    var stat: FileStat?
    /// The file was removed by sync itself to make room for another note (not a user delete):
    /// it is never uploaded as a delete, and its own server change brings it back.
    var evicted = false
    /// The file is not valid UTF-8: left alone, neither uploaded nor replaced.
    var frozen = false
}

/// A file the index does not know: a new note or attachment to upload.
struct UntrackedFile: Sendable {
    var path: String
    var diskPath: String
    var hash: String
    var stat: FileStat
}

/// The local side of a sync: what changed in the folder since the last sync.
struct LocalSnapshot: Sendable {
    var tracked: [NoteID: TrackedNote] = [:]
    var untracked: [UntrackedFile] = []
    var warnings: [String] = []
    /// Files read because their metadata differed from the index (or they are new).
    var filesRead = 0
    /// Of those, the files `NewFileReadAhead` read (on its threads, ahead of the scan).
    var filesReadAhead = 0
    /// The server's limits, if the scan had to ask for them (it read a file).
    var limits: ServerLimits?
    /// The texts of new and changed notes as read here, for the push (bounded).
    var texts = ScannedTexts.none
    /// The chunk digests of the attachments the scan hashed that go up in chunks, by disk path,
    /// for the upload (`ChunkDigests`).
    var chunkDigests: [String: ScannedChunks] = [:]
    /// Files the scan left out, each with why (too large, unreadable, ignored).
    var skipped: [SyncReport.Skipped] = []
    /// The tracked notes found clean only after a closer look (their metadata, or the name on
    /// disk, differs from the index's): the only ones whose row may need new metadata, so the
    /// sync visits these instead of all 10,000.
    var cleanOnCloserLook: [NoteID] = []
}

/// Scans a bound folder against its index without reading unchanged files (docs/architecture.md, Sync invariants 11).
struct LocalScan {
    let folder: SyncFolder
    let files: SafeFiles
    let ignore: IgnoreRules
    /// The server's limits (`GET /v1/limits`, else the documented defaults), asked for only
    /// when a file must be read, so a sync of an unchanged folder costs no request. A file over
    /// the note or attachment limit cannot be stored; it is left alone and named in the report.
    let limits: @Sendable () async -> ServerLimits
    /// Whether new files are read ahead on two threads (`NewFileReadAhead`); off only in tests that
    /// check it against the scan's own reads.
    var readsAhead = true
    /// Whether the chunk digests of large new attachments are taken for the upload
    /// (`ChunkDigests`); off for a dry run, which uploads nothing.
    var takesChunkDigests = true

    /// The chunk size a large new attachment's digests are taken at, or nil when none are.
    private func chunkDigestBytes(_ attachments: AttachmentLimits) -> Int? {
        takesChunkDigests ? attachments.chunkBytes : nil
    }
    /// Offered each new note read ahead, with its text if kept for the push, as soon as it is
    /// read (`EarlyUploads`); a note it takes is left out of the snapshot. `nil`: none is offered.
    var takeNew: ((UntrackedFile, ScannedTexts.Text) async throws -> Bool)?

    /// The path under which two names are one file on this folder's filesystem.
    private func key(_ path: String) -> String {
        FolderState.key(path, caseInsensitive: folder.config.caseInsensitive)
    }

    /// Starts walking `folder` on its own thread, so the walk overlaps whatever comes next
    /// (reading the index: each is about a tenth of a no-op sync of 10,000 notes).
    /// It runs on a thread of its own, not on Swift's pool, whose other thread must stay free to
    /// send the first changes request meanwhile.
    static func startWalk(of folder: SyncFolder) -> ThreadWork<FolderWalker.Listing> {
        let root = folder.root
        return ThreadWork { try FolderWalker(root: root, fileSuffix: "").walk(inTwo: true) }
    }

    /// Compares the files the walk lists with the index's `rows`. The rows are laid out for
    /// the comparison before the walk's listing is awaited, so a caller that has not awaited
    /// it yet has this overlap the walk. (`SyncEngine.run` awaits it first since an unchanged
    /// folder is told by `IndexTable.isUnchanged` without any row: this runs only when
    /// something changed.)
    func scan(rows: consuming [IndexRow], listing awaitListing: () async throws -> FolderWalker.Listing) async throws -> LocalSnapshot {
        // The tracked notes by id, made now, while the walk's threads still stat files: on a
        // no-op the walk is the longest part of the sync and what follows it runs alone on one
        // core, so the table of 10,000 notes (hashing each id), made after the loop, would
        // lengthen that tail. The rows are moved in, not copied (a copy and a release of each
        // row's three strings were ~10M instructions, 6 % of a no-op sync's).
        var notes: [NoteID: TrackedNote] = [:]
        notes.reserveCapacity(rows.count)
        while let row = rows.popLast() { notes[row.base.id] = TrackedNote(row: row, local: .missing) }
        // Each note found by where its file was (so a name the disk spells differently, NFD on
        // macOS or another case on a case-insensitive disk, is not taken for a rename), as its
        // position in `notes`: changed in place through `values`, without hashing its id again.
        // The table is not resized or removed from before the loop ends, so positions hold.
        var byKey: [String: Dictionary<NoteID, TrackedNote>.Index] = [:]
        byKey.reserveCapacity(notes.count)
        for index in notes.indices { byKey[key(notes.values[index].row.diskPath)] = index }
        let listing = try await awaitListing()
        var snapshot = LocalSnapshot()
        snapshot.texts = .startingNow(capacity: ScannedTexts.capacity(forFiles: listing.entries.count))
        snapshot.warnings += Self.warnings(for: listing)
        let readAhead = await startReadAhead(of: listing, tracked: byKey, into: &snapshot)
        var leftAlone: [FolderWalker.Entry] = []
        for (entryIndex, entry) in listing.entries.enumerated() {
            let path = NotePath.nfc(entry.path)
            let stat = FileStat(size: entry.size, mtimeNanoseconds: entry.modifiedSeconds * 1_000_000_000 + entry.modifiedNanoseconds,
                                inode: entry.inode)
            // `path` is NFC already, so its key is `key(path)` without normalising it again.
            let pathKey = folder.config.caseInsensitive ? NotePath.collisionKey(of: path) : path
            let tracked = byKey[pathKey]
            if let readAhead, readAhead.isCandidate(entryIndex) {
                // A new file `startReadAhead` checked as the steps below would (no row at its key,
                // named as a new entry may be, not ignored): only its read is left. Not checked
                // again: the checks twice were 7 % more instructions on a first upload (callgrind).
                let ahead = await readAhead.take(entry: entryIndex)
                guard let hash = try await readHash(entry.path, kind: EntryKind(path: path), size: entry.size, ahead: ahead,
                                                    into: &snapshot) else { continue }
                let file = UntrackedFile(path: path, diskPath: entry.path, hash: hash, stat: stat)
                if let takeNew, let text = snapshot.texts.take(entry.path) {
                    if try await takeNew(file, text) { continue }
                    snapshot.texts.keep(text.text, hash: text.hash, stat: text.stat, at: entry.path)
                }
                snapshot.untracked.append(file)
                continue
            }
            // Unchanged at the very name it was synced under: clean, without checking the name
            // again (a tenth of a no-op scan). The index holds only names that passed the check
            // (a file's when it was first scanned, the server's when it was downloaded), and
            // whatever else differs (the bytes on disk, the metadata) takes the general path below.
            if let index = tracked, notes.values[index].diskPath == nil, stat == notes.values[index].row.stat,
               entry.path == notes.values[index].row.diskPath, path == notes.values[index].row.base.path {
                notes.values[index].diskPath = entry.path
                notes.values[index].stat = stat
                notes.values[index].local = .clean
                continue
            }
            if let problem = EntryName.problem(path) {
                leaveAlone(entry, path: path, problem: problem, into: &snapshot)
                leftAlone.append(entry)
                continue
            }
            if let index = tracked, notes.values[index].diskPath == nil,
               path == notes.values[index].row.base.path || EntryKind(path: notes.values[index].row.base.path) == EntryKind(path: path) {
                // Changed in place: a copy of the note per file was a tenth of the scan.
                notes.values[index].diskPath = entry.path
                notes.values[index].stat = stat
                // At its path (the name it was synced under, or one that means the same):
                let atBasePath = entry.path == notes.values[index].row.diskPath || path == notes.values[index].row.base.path
                if stat == notes.values[index].row.stat && atBasePath {
                    notes.values[index].local = .clean
                    snapshot.cleanOnCloserLook.append(notes.values[index].row.base.id)
                    continue
                }
                let row = notes.values[index].row
                let localPath = entry.path == row.diskPath ? row.base.path : path
                if let hash = try await readHash(entry.path, kind: EntryKind(path: path), size: entry.size, into: &snapshot) {
                    notes.values[index].local = hash == row.base.hash && localPath == row.base.path ? .clean : .changed(path: localPath, hash: hash)
                    if notes.values[index].local == .clean {
                        snapshot.texts.forget(entry.path)  // touched only: nothing to send
                        snapshot.cleanOnCloserLook.append(row.base.id)
                    }
                } else {
                    notes.values[index].local = .clean
                    notes.values[index].frozen = true
                }
                continue
            }
            if ignore.isIgnored(path) {
                // An editor's swap file is not worth naming; what `.notesignore` names is.
                if !IgnoreRules.editorTemporaryFiles.isIgnored(path) {
                    snapshot.skipped.append(.init(path: path, reason: .ignored, detail: "matched by .notesignore"))
                }
                continue
            }
            // A new file named as the server refuses for new entries (an embedding, override or
            // isolate control) is left alone too; a tracked one keeps its name.
            if let problem = EntryName.newEntryProblem(path) {
                leaveAlone(entry, path: path, problem: problem, into: &snapshot)
                leftAlone.append(entry)
                continue
            }
            guard let hash = try await readHash(entry.path, kind: EntryKind(path: path), size: entry.size, into: &snapshot) else { continue }
            snapshot.untracked.append(UntrackedFile(path: path, diskPath: entry.path, hash: hash, stat: stat))
        }
        snapshot.tracked = notes
        detectRenames(&snapshot)
        try await holdNotesRenamedAway(&snapshot, to: leftAlone)
        return snapshot
    }

    /// A tracked note whose file is gone while a file sync leaves alone for its name holds the
    /// same text was renamed to that name: the note is held as it is (not deleted on the
    /// server, not updated here) until the file gets a name sync can store, when it is a rename.
    private func holdNotesRenamedAway(_ snapshot: inout LocalSnapshot, to leftAlone: [FolderWalker.Entry]) async throws {
        guard !leftAlone.isEmpty, snapshot.tracked.values.contains(where: { $0.diskPath == nil && $0.local == .missing }) else { return }
        var namesByHash: [String: String] = [:]
        for entry in leftAlone {
            let path = NotePath.nfc(entry.path)
            guard let hash = try await readHash(entry.path, kind: EntryKind(path: path), size: entry.size, into: &snapshot) else { continue }
            snapshot.texts.forget(entry.path)  // never sent under this name
            namesByHash[hash] = entry.path
        }
        for (id, var note) in snapshot.tracked where note.diskPath == nil && note.local == .missing {
            guard let name = namesByHash[note.row.base.hash] else { continue }
            note.local = .clean
            note.frozen = true
            snapshot.tracked[id] = note
            snapshot.warnings.append("kept \(note.row.base.path) as it is on the server: its file was renamed to \(name), which sync cannot store")
        }
    }

    /// Starts reading ahead (`NewFileReadAhead`) the files the scan is sure to read: new files (no
    /// row at their name, by the same key as the scan's), named as a new entry may be, not
    /// ignored, within the server's limit for their kind (asked for here, as the first read would).
    /// `nil` when there is none, or too few to pay for a pass over every entry: the listing
    /// holds fewer than `NewFileReadAhead.minimumNewFiles` files more than the tracked notes (a
    /// lower bound of the new files), as in a sync of a few edits, whose reads go inline.
    private func startReadAhead(of listing: FolderWalker.Listing, tracked byKey: [String: Dictionary<NoteID, TrackedNote>.Index],
                                into snapshot: inout LocalSnapshot) async -> NewFileReadAhead? {
        guard readsAhead, listing.entries.count - byKey.count >= NewFileReadAhead.minimumNewFiles else { return nil }
        var candidates: [NewFileReadAhead.Candidate] = []
        for (index, entry) in listing.entries.enumerated() {
            let path = NotePath.nfc(entry.path)
            let pathKey = folder.config.caseInsensitive ? NotePath.collisionKey(of: path) : path
            // A name fit for a new entry is fit for any entry (`NotePath.forNewEntry` checks
            // `init(entry:)`'s rules first): one validation, not two.
            guard byKey[pathKey] == nil, !ignore.isIgnored(path), EntryName.newEntryProblem(path) == nil else { continue }
            candidates.append(.init(entry: index, path: entry.path, kind: EntryKind(path: path), size: entry.size))
        }
        guard !candidates.isEmpty else { return nil }
        if snapshot.limits == nil { snapshot.limits = await limits() }
        let limits = snapshot.limits ?? ResponseBudget.defaultLimits
        let attachments = AttachmentLimits(limits)
        candidates.removeAll { $0.size > ($0.kind == .note ? Int64(limits.maxNoteBytes) : attachments.maxBytes) }
        guard !candidates.isEmpty else { return nil }
        return NewFileReadAhead(root: folder.root, scratch: folder.scratchDirectory, entryCount: listing.entries.count,
                                candidates: candidates, chunkBytes: chunkDigestBytes(attachments))
    }

    /// What the scan warns of for the files the walk left out (names that are not UTF-8).
    static func warnings(for listing: FolderWalker.Listing) -> [String] {
        listing.skipped.map { "left alone \($0.path): \($0.reason)" }
    }

    /// Missing tracked files whose content reappears in a new file were renamed or moved.
    ///
    /// Creates not yet confirmed count too: the server may hold one whose answer was lost (a
    /// sync killed mid-batch), and taking the renamed file for another new note would leave
    /// that one on the server, then back here, as a duplicate.
    private func detectRenames(_ snapshot: inout LocalSnapshot) {
        guard !snapshot.untracked.isEmpty else { return }
        let missing = snapshot.tracked.values.filter { $0.diskPath == nil }.map(\.row.base)
        guard !missing.isEmpty else { return }
        // Only within a kind: a file renamed from `.md` to `.txt` is a new attachment and a deleted note.
        var renames: [NoteID: String] = [:]
        for kind in EntryKind.allCases {
            let added = snapshot.untracked.filter { EntryKind(path: $0.path) == kind }.map { ($0.path, $0.hash) }
            renames.merge(SyncPlanner.detectRenames(missing: missing.filter { EntryKind(path: $0.path) == kind }, added: added)) { first, _ in first }
        }
        guard !renames.isEmpty else { return }
        let byPath = Dictionary(snapshot.untracked.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, path) in renames {
            guard let file = byPath[path], var note = snapshot.tracked[id] else { continue }
            note.local = .changed(path: path, hash: file.hash)
            note.diskPath = file.diskPath
            note.stat = file.stat
            snapshot.tracked[id] = note
        }
        let taken = Set(renames.values)
        snapshot.untracked.removeAll { taken.contains($0.path) }
    }

    /// Names a file whose name sync cannot store (`EntryName`), and leaves it where it is, as it
    /// is: the user's name is never changed (links to it, other programs, would break), and every
    /// sync names it again with its reason until the user renames it. An ignored one is only
    /// named as ignored.
    private func leaveAlone(_ entry: FolderWalker.Entry, path: String, problem: NotePathError, into snapshot: inout LocalSnapshot) {
        if ignore.isIgnored(path) {
            snapshot.skipped.append(.init(path: entry.path, reason: .ignored, detail: "matched by .notesignore"))
            return
        }
        let suggestion = SyncableName.repaired(path)
        let rename = EntryName.newEntryProblem(suggestion) == nil ? " (such as \(suggestion))" : ""
        snapshot.warnings.append("left alone \(entry.path): \(problem); rename it\(rename) to sync it")
        snapshot.skipped.append(.init(path: entry.path, reason: .unsyncableName, detail: "\(problem)"))
    }

    /// The content hash of a file, or `nil` (named in the report) when it cannot be synced: over
    /// the server's limit for its kind, unreadable, or a note that is not UTF-8 text. A note is
    /// read whole (it is small and must be text); an attachment is hashed through a fixed buffer.
    /// `ahead` is the outcome of the file's read by `NewFileReadAhead`, taken in as the read here.
    private func readHash(_ diskPath: String, kind: EntryKind, size: Int64, ahead: NewFileReadAhead.Outcome? = nil,
                          into snapshot: inout LocalSnapshot) async throws -> String? {
        if snapshot.limits == nil { snapshot.limits = await limits() }
        let limits = snapshot.limits ?? ResponseBudget.defaultLimits
        let attachments = AttachmentLimits(limits)
        let limit = kind == .note ? Int64(limits.maxNoteBytes) : attachments.maxBytes
        guard size <= limit else {
            let what = kind == .note ? "note" : "attachment"
            snapshot.warnings.append("left alone \(diskPath): larger than the server's \(what) limit of \(limit) bytes")
            snapshot.skipped.append(.init(path: diskPath, reason: .tooLarge, detail: "\(size) bytes, over the server's \(what) limit of \(limit) bytes"))
            return nil
        }
        do {
            switch kind {
            case .attachment:
                let hashed = try ahead?.get() ?? NewFileReadAhead.hash(diskPath, chunkBytes: chunkDigestBytes(attachments), with: files)
                snapshot.filesRead += 1
                if ahead != nil { snapshot.filesReadAhead += 1 }
                if let chunks = hashed.chunks {
                    snapshot.chunkDigests[diskPath] = ScannedChunks(hash: hashed.hash, stat: hashed.stat, digests: chunks)
                }
                return hashed.hash
            case .note:
                let read = try ahead?.get() ?? NewFileReadAhead.read(diskPath, with: files)
                snapshot.filesRead += 1
                if ahead != nil { snapshot.filesReadAhead += 1 }
                guard let text = read.text else {
                    snapshot.warnings.append("left alone \(diskPath): not UTF-8 text")
                    snapshot.skipped.append(.init(path: diskPath, reason: .unreadable, detail: "a .md note that is not UTF-8 text"))
                    return nil
                }
                snapshot.texts.keep(text, hash: read.hash, stat: read.stat, at: diskPath)
                return read.hash
            }
        } catch let error as SyncFileError where error.code == ENOENT || error.code == ESTALE {
            return nil  // deleted or changing since the walk listed it: seen next time
        } catch let error as SyncFileError where error.unsafe {
            // A folder on its path became a link since the walk: never read through it.
            snapshot.warnings.append("\(error)")
            return nil
        } catch let error as SyncFileError {
            snapshot.warnings.append("left alone \(diskPath): \(error)")
            snapshot.skipped.append(.init(path: diskPath, reason: .unreadable, detail: "\(error)"))
            return nil
        }
    }
}

extension LocalSnapshot {
    /// What changed in the folder since the last sync, as the scan found it: what `notes status`
    /// lists even when the server cannot be reached. A create sent but never confirmed (a sync
    /// killed mid-upload) is still new.
    var localChanges: [SyncReport.LocalChange] {
        var changes: [SyncReport.LocalChange] = []
        for file in untracked { changes.append(.init(change: .new, path: file.path)) }
        for note in tracked.values where !note.frozen {
            let base = note.row.base
            switch note.local {
            case .missing:
                if base.rev > 0 { changes.append(.init(change: .deleted, path: base.path)) }
            case .clean:
                if base.rev == 0 { changes.append(.init(change: .new, path: base.path)) }
            case .changed(let path, let hash):
                if base.rev == 0 {
                    changes.append(.init(change: .new, path: path))
                    continue
                }
                if path != base.path { changes.append(.init(change: .renamed, path: path, from: base.path)) }
                if hash != base.hash { changes.append(.init(change: .modified, path: path)) }
            }
        }
        return changes.sorted { ($0.path, $0.change.rawValue) < ($1.path, $1.change.rawValue) }
    }
}
