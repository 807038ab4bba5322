import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a write changed in OUTDIR.
struct ExportSummary: Sendable, Equatable {
    var written: [String] = []
    var unchanged = 0
    var removed: [String] = []
    /// Pages of deleted notes left in place because someone edited them after export.
    var keptEdited: [String] = []
}

/// Writes a `Site` into OUTDIR incrementally and safely: only files whose bytes changed are
/// rewritten (atomically, temp file then rename), files of notes that are gone are removed, and
/// nothing that the manifest does not list is ever replaced or deleted.
struct SiteWriter: Sendable {
    var directory: URL

    /// Brings `directory` to hold exactly `site` (plus whatever else the user keeps there).
    /// - Throws: `ExportError` before writing anything when a file the site needs already exists
    ///   and was not written by an export; otherwise the I/O error that stopped it.
    func write(_ site: Site) throws -> ExportSummary {
        // An OUTDIR this export makes holds nothing yet: no file in it needs an `lstat` first
        // (one path lookup of the four each page cost).
        let made = mkdir(directory.path, 0o777) == 0
        if !made {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw ExportError.cannotCreate(path: directory.path, cause: error)
            }
        }
        let old = try ExportManifest.load(from: directory)
        // Plain string paths: building a Foundation URL for each of 10,000 files was a tenth of
        // an export's time.
        let root = directory.path
        var summary = ExportSummary()
        var final = ExportManifest()
        // Each with the mode its file gets: that of the regular file it replaces (found by the
        // `lstat` here, not a second one before writing), else 0644.
        var toWrite: [(file: SiteFile, mode: mode_t)] = []
        var foreign: [String] = []
        for file in site.files {
            let bytes = try file.bytes()
            let hash = SHA256.hex(of: bytes)
            final.files[file.path] = hash
            let onDisk = made ? nil : status(ofPath: root + "/" + file.path)
            if let recorded = old.files[file.path] {
                // Ours: unchanged if the recorded bytes are still there (same hash, same size).
                if recorded == hash, onDisk?.isRegular == true, onDisk?.size == Int64(bytes.count) {
                    summary.unchanged += 1
                } else {
                    toWrite.append((file, onDisk?.replacedMode ?? 0o644))
                }
            } else if onDisk == nil {
                toWrite.append((file, 0o644))
            } else if onDisk?.isRegular == true, FileContents.read(atPath: root + "/" + file.path) == bytes {
                summary.unchanged += 1  // identical bytes: adopt it (an export whose manifest was lost)
            } else {
                foreign.append(file.path)
            }
        }
        guard foreign.isEmpty else {
            throw ExportError.foreignFiles(directory: directory.path, paths: foreign)
        }
        let stale = old.files.keys.filter { final.files[$0] == nil }.sorted()
        if toWrite.isEmpty && stale.isEmpty {
            try final.save(to: directory)
            return summary
        }
        // Claim every file about to be written before writing it (see ExportManifest).
        var pending = old
        for (file, _) in toWrite { pending.files[file.path] = .some(nil) }
        try pending.save(to: directory)

        // Stale files go first, so a name they free (a page that becomes a folder) is free.
        for path in stale {
            guard let onDisk = status(ofPath: root + "/" + path), onDisk.isRegular else { continue }
            // Remove only what is still what we wrote; a page edited since is the user's now.
            if let recorded = old.files[path] ?? nil, FileContents.read(atPath: root + "/" + path).map({ SHA256.hex(of: $0) }) != recorded {
                summary.keptEdited.append(path)
                continue
            }
            do {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(path))
            } catch {
                throw ExportError.cannotRemove(path: path, directory: directory.path, cause: error)
            }
            summary.removed.append(path)
            removeEmptyFolders(above: path)
        }

        var createdFolders: Set<Substring> = [""]
        var temporaryNames = TemporaryNames()
        for (file, mode) in toWrite {
            let path = root + "/" + file.path
            do {
                let folder = file.path.utf8.lastIndex(of: UInt8(ascii: "/")).map { file.path[..<$0] } ?? ""
                if createdFolders.insert(folder).inserted {
                    try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
                }
                try replace(path, with: try file.bytes(), mode: mode, temporaryNames: &temporaryNames)
            } catch {
                throw ExportError.cannotWrite(path: path, cause: error)
            }
            summary.written.append(file.path)
        }
        flush()
        try final.save(to: directory)
        return summary
    }

    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`: readers see
    /// the old page or the new one, never half of one. On Linux this does not fsync each page as
    /// `Data.write(options: .atomic)` does (a third of an export of 10,000 notes went to waiting
    /// for the disk); `flush()` makes the whole export durable once, before the manifest vouches
    /// for it. A page lost to a power cut before that is rewritten by the next export, which
    /// checks each page's size and hash.
    private func replace(_ path: String, with bytes: Data, mode: mode_t, temporaryNames: inout TemporaryNames) throws {
        #if os(Linux)
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) } ?? path.startIndex
        var temporary: String
        var fd: Int32
        repeat {
            temporary = String(path[..<slash]) + temporaryNames.next()
            fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        } while fd < 0 && errno == EEXIST  // a leftover of a killed export that had the same prefix
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let failure = bytes.withUnsafeBytes { POSIXIO.writeAll(fd, $0) }
        close(fd)
        let code = failure != 0 ? failure : (rename(temporary, path) == 0 ? 0 : errno)
        guard code == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        #else
        try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
        #endif
    }

    /// Makes every page written so far durable: one `syncfs` of OUTDIR's filesystem.
    private func flush() {
        #if os(Linux)
        FileSystemSync.flush(filesystemOf: directory.path)
        #endif
    }

    private struct FileStatus {
        var isRegular: Bool
        var size: Int64
        /// The permission bits a page written over this file keeps; nil when it is not a regular file.
        var replacedMode: mode_t?
    }

    /// What is at the absolute `path`, without following a symbolic link; nil when nothing is.
    private func status(ofPath path: String) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let isRegular = info.st_mode & S_IFMT == S_IFREG
        return FileStatus(isRegular: isRegular, size: Int64(info.st_size), replacedMode: isRegular ? info.st_mode & 0o777 : nil)
    }

    /// Removes the folders that held `path` and are now empty, up to OUTDIR itself (kept).
    private func removeEmptyFolders(above path: String) {
        var folder = Substring(path)
        while let slash = folder.lastIndex(of: "/") {
            folder = folder[..<slash]
            // rmdir refuses a folder that still holds anything, the user's files included.
            guard rmdir(directory.appendingPathComponent(String(folder)).path) == 0 else { return }
        }
    }
}
