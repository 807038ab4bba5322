import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder as the last sync left it, by path on disk, so a watcher can tell a change a sync
/// would act on from the sync's own writes: a file whose size, modification time and inode are
/// what the index recorded is as the sync left it (the same test the scan uses, docs/architecture.md, Sync invariants 11).
///
/// Events carry no author, and the events of a sync's writes arrive after it: comparing with
/// the index is what keeps a watcher from syncing after each of its own syncs, forever.
struct SyncedFiles: Sendable {
    private var stats: [String: FileStat] = [:]

    /// What the index says the last sync left.
    init(rows: [IndexRow]) {
        for row in rows { stats[row.diskPath] = row.stat }
    }

    /// Whether any of `events` in the folder at `root` is a change a sync would act on: a synced
    /// file changed or gone, a new file that would sync, notes gone with their folder, or
    /// `.notesignore` edited. Editors' temporary files and anything ignored count for nothing.
    func containsChange(_ events: LocalEvents, root: String, ignore: IgnoreRules) -> Bool {
        if events.overflowed { return true }
        for path in events.files {
            if path == ".notesignore" { return true }
            let now = Self.fileStat(root + "/" + path)
            if let synced = stats[path] {
                if now != synced { return true }
                continue
            }
            if now != nil, Self.wouldSync(path, ignore: ignore) { return true }
        }
        for folder in events.vanishedFolders {
            let prefix = folder + "/"
            if stats.keys.contains(where: { $0.hasPrefix(prefix) && Self.fileStat(root + "/" + $0) == nil }) { return true }
        }
        return false
    }

    /// Whether a file the index does not know would be uploaded by the next sync: any file,
    /// note or attachment, but dot-files and what the ignore rules (editors' files included) name.
    static func wouldSync(_ path: String, ignore: IgnoreRules) -> Bool {
        guard !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return false }
        return !ignore.isIgnored(NotePath.nfc(path))
    }

    /// The metadata of the regular file at `path` as the scan records it; nil for anything else.
    static func fileStat(_ path: String) -> FileStat? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return SafeFiles.fileStat(info)
    }
}
