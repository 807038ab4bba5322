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

/// A Markdown file the index does not know: a new note to upload.
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
    /// Note files whose names cannot be note paths (`SyncableName`): moved to conflict copies.
    var unsyncable: [UntrackedFile] = []
    var warnings: [String] = []
    /// Files read because their metadata differed from the index (or they are new).
    var filesRead = 0
    /// The server's note limit, if the scan had to ask for it (it read a file).
    var noteLimit: Int?
}

/// Scans a bound folder against its index without reading unchanged files (DESIGN 4.11).
struct LocalScan {
    let folder: SyncFolder
    let files: SafeFiles
    let ignore: IgnoreRules
    /// The server's note limit (`GET /v1/limits`, else the documented default), asked for only
    /// when a file must be read, so a sync of an unchanged folder costs no request. Larger
    /// files cannot be notes on the server; they are left alone with a warning naming them.
    let noteLimit: @Sendable () async -> Int

    /// The path under which two names are one file on this folder's filesystem.
    private func key(_ path: String) -> String {
        FolderState.key(path, caseInsensitive: folder.config.caseInsensitive)
    }

    func scan(rows: [IndexRow]) async throws -> LocalSnapshot {
        let listing: FolderWalker.Listing
        do {
            listing = try FolderWalker(root: folder.root, fileSuffix: "").walk()
        } catch {
            throw CLIError.failure("\(error)")
        }
        var snapshot = LocalSnapshot()
        var byKey: [String: NoteID] = [:]
        for row in rows {
            snapshot.tracked[row.base.id] = TrackedNote(row: row, local: .missing)
            // Found by where its file was, so a name the disk spells differently (NFD on macOS,
            // another case on a case-insensitive disk) is not taken for a rename.
            byKey[key(row.diskPath)] = row.base.id
        }
        for skipped in listing.skipped { snapshot.warnings.append("left alone \(skipped.path): \(skipped.reason)") }
        var seen = Set<NoteID>()
        var otherFiles = 0
        for entry in listing.entries {
            guard entry.path.hasSuffix(NotePath.fileExtension) else {
                // An editor's swap file or anything `.notesignore` names is not worth a warning.
                if !ignore.isIgnored(NotePath.nfc(entry.path)) { otherFiles += 1 }
                continue
            }
            let path = NotePath.nfc(entry.path)
            let stat = FileStat(size: entry.size, mtimeNanoseconds: entry.modifiedSeconds * 1_000_000_000 + entry.modifiedNanoseconds,
                                inode: entry.inode)
            if let problem = SyncableName.problem(path) {
                try await setAside(entry, path: path, stat: stat, problem: problem, into: &snapshot)
                continue
            }
            if let id = byKey[key(path)], !seen.contains(id),
               var note = snapshot.tracked[id] {
                seen.insert(id)
                note.diskPath = entry.path
                note.stat = stat
                let localPath = entry.path == note.row.diskPath ? note.row.base.path : path
                if stat == note.row.stat && localPath == note.row.base.path {
                    note.local = .clean
                } else if let hash = try await readHash(entry.path, size: entry.size, into: &snapshot) {
                    note.local = hash == note.row.base.hash && localPath == note.row.base.path ? .clean : .changed(path: localPath, hash: hash)
                } else {
                    note.local = .clean
                    note.frozen = true
                }
                snapshot.tracked[id] = note
                continue
            }
            if ignore.isIgnored(path) { continue }
            // A new file named as the server refuses for new notes (a bidi override, an invisible
            // character, spaces at the ends) is set aside too; a tracked note keeps its name.
            if let problem = SyncableName.newNoteProblem(path) {
                try await setAside(entry, path: path, stat: stat, problem: problem, into: &snapshot)
                continue
            }
            guard let hash = try await readHash(entry.path, size: entry.size, into: &snapshot) else { continue }
            snapshot.untracked.append(UntrackedFile(path: path, diskPath: entry.path, hash: hash, stat: stat))
        }
        if otherFiles > 0 {
            snapshot.warnings.append("left alone \(otherFiles) file(s) that are not .md notes")
        }
        detectRenames(&snapshot, seen: seen)
        return snapshot
    }

    /// Missing tracked files whose content reappears in a new file were renamed or moved.
    ///
    /// Creates not yet confirmed count too: the server may hold one whose answer was lost (a
    /// sync killed mid-batch), and taking the renamed file for another new note would leave
    /// that one on the server, then back here, as a duplicate.
    private func detectRenames(_ snapshot: inout LocalSnapshot, seen: Set<NoteID>) {
        let missing = snapshot.tracked.values.filter { !seen.contains($0.row.base.id) }.map(\.row.base)
        guard !missing.isEmpty, !snapshot.untracked.isEmpty else { return }
        let renames = SyncPlanner.detectRenames(missing: missing, added: snapshot.untracked.map { ($0.path, $0.hash) })
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

    /// The content hash of a file, or `nil` (with a warning) when it cannot be a note.
    /// A note file whose name cannot be a new note's goes to a conflict copy under a repaired
    /// name, which syncs; an ignored one, or one no repair makes valid, is left alone and named.
    private func setAside(_ entry: FolderWalker.Entry, path: String, stat: FileStat, problem: NotePathError,
                          into snapshot: inout LocalSnapshot) async throws {
        let repaired = SyncableName.repaired(path)
        guard !ignore.isIgnored(path), SyncableName.newNoteProblem(repaired) == nil else {
            snapshot.warnings.append("left alone \(entry.path): \(problem)")
            return
        }
        if let hash = try await readHash(entry.path, size: entry.size, into: &snapshot) {
            snapshot.unsyncable.append(UntrackedFile(path: repaired, diskPath: entry.path, hash: hash, stat: stat))
        }
    }

    private func readHash(_ diskPath: String, size: Int64, into snapshot: inout LocalSnapshot) async throws -> String? {
        if snapshot.noteLimit == nil { snapshot.noteLimit = await noteLimit() }
        let limit = snapshot.noteLimit ?? ResponseBudget.defaultLimits.maxNoteBytes
        guard size <= limit else {
            snapshot.warnings.append("left alone \(diskPath): larger than the server's note limit of \(limit) bytes")
            return nil
        }
        let bytes: [UInt8]
        do {
            bytes = try files.read(diskPath).bytes
        } catch let error as SyncFileError where error.code == ENOENT {
            return nil  // deleted since the walk listed it: seen next time
        } catch let error as SyncFileError where error.unsafe {
            // A folder on its path became a link since the walk: never read through it.
            snapshot.warnings.append("\(error)")
            return nil
        }
        snapshot.filesRead += 1
        guard String(validating: bytes, as: UTF8.self) != nil else {
            snapshot.warnings.append("left alone \(diskPath): not UTF-8 text")
            return nil
        }
        return SHA256.hex(of: bytes)
    }
}

extension LocalSnapshot {
    /// What changed in the folder since the last sync, as the scan found it: what `notes status`
    /// lists even when the server cannot be reached. A create sent but never confirmed (a sync
    /// killed mid-upload) is still new.
    var localChanges: [SyncReport.LocalChange] {
        var changes: [SyncReport.LocalChange] = []
        for file in untracked { changes.append(.init(change: .new, path: file.path)) }
        for file in unsyncable { changes.append(.init(change: .new, path: NotePath.nfc(file.diskPath))) }
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
