import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every file operation sync makes inside a bound folder, made so that a hostile path or a
/// symbolic link cannot lead outside the folder (docs/architecture.md, Sync invariants 8), a file is never half-written
/// (docs/architecture.md, Sync invariants 7), and a file the user changed since the scan is never replaced (docs/architecture.md, Sync invariants 10).
///
/// Folders are opened one at a time relative to their parent with `O_NOFOLLOW`, so a symlinked
/// folder anywhere on the path stops the operation. Writes go to a temporary file in
/// `.notes/tmp`, then are renamed over the target they replace, or renamed without replacing
/// (hard-linked where the kernel has no such rename) into a place that must be free (so a file
/// created there at the last instant is never replaced). The root and its folders are kept open
/// between the files of a page, each use checked against the name (`SafeFiles+Handles.swift`).
struct SafeFiles: Sendable {
    let root: String
    let scratch: String
    /// Folders kept open between the files of a page (`SafeFiles+Handles.swift`).
    let handles = FolderHandles()

    /// What sits at a path now.
    enum Occupant: Equatable {
        case none
        case file(FileStat)
        /// A folder, a symbolic link or anything else that sync never replaces.
        case other
    }

    /// What the caller expects at the target before a write, a move or a removal.
    enum Expectation: Equatable {
        case absent
        case file(FileStat)
    }

    /// What is at `relative` now (never following a link).
    func occupant(_ relative: String) throws -> Occupant {
        try withParent(relative, create: false) { parent, name in
            guard let parent else { return .none }
            return Self.occupant(parent, name)
        }
    }

    /// The bytes of the regular file at `relative` and its metadata as read.
    /// - Throws: `SyncFileError` (`ENOENT` when a folder on the way or the file is gone; unsafe
    ///   when a folder on the way is a link).
    func read(_ relative: String) throws -> (bytes: [UInt8], stat: FileStat) {
        let fd = try withParent(relative, create: false) { parentFD, name in
            guard let parent = parentFD else { throw SyncFileError(relative, "read", ENOENT) }
            let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw SyncFileError(relative, "read", errno) }
            return fd
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SyncFileError(relative, "read", errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SyncFileError(relative, "read", EINVAL) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        // A file that shrank while being read keeps what is there.
        let done = bytes.withUnsafeMutableBytes { POSIXIO.readAll(fd, into: $0) }
        if done < bytes.count { bytes.removeLast(bytes.count - done) }
        return (bytes, Self.fileStat(info))
    }

    /// Writes `bytes` at `relative` atomically if the target is still as `expected`.
    /// - Returns: the new file's metadata, or `nil` when the target changed (nothing written).
    /// - Throws: `SyncFileError` when a folder on the way is a link or cannot be created.
    func write(_ bytes: [UInt8], to relative: String, expecting expected: Expectation) throws -> FileStat? {
        // No look at the target first: `install` checks it at the last moment anyway, and a
        // clone of thousands of notes would pay a walk to each one's folder twice.
        // Not hashed again as written: the caller holds the bytes it checked (a download's against
        // its hash where it entered the client), and they are written from that same memory.
        let staged = try StagedFile(scratch: scratch, for: relative, mode: try mode(for: relative, expected), hashing: false)
        do {
            try staged.append(bytes)
        } catch {
            staged.discard()
            throw error
        }
        return try install(staged, at: relative, expecting: expected, durable: !Self.defersDurability)
    }

    /// The permissions a file written at `relative` gets: those of the file it replaces, else 0644.
    func mode(for relative: String, _ expected: Expectation) throws -> mode_t {
        guard case .file = expected else { return 0o644 }
        let (parentFD, name) = try openParent(relative, create: false)
        guard let parent = parentFD else { return 0o644 }
        defer { close(parent) }
        var info = stat()
        return fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info.st_mode & 0o777 : 0o644
    }

    /// Puts the complete file `staged` at `relative` if the target is still as `expected`,
    /// consuming `staged` either way. The target's folders are reached and created as every
    /// other operation reaches them, so the file can only land inside the folder.
    /// - Parameter durable: fsync the file before it is placed (always, for a large download),
    ///   else durability waits for `flush()`.
    /// - Returns: the placed file's metadata, or `nil` when the target changed (nothing placed).
    func install(_ staged: StagedFile, at relative: String, expecting expected: Expectation, durable: Bool) throws -> FileStat? {
        let written: FileStat
        do {
            written = try staged.finish(durable: durable)
        } catch {
            unlink(staged.path)
            throw error
        }
        // The staged file's own metadata is returned, not a stat of the name now: an editor
        // saving in the instant after the rename must not have its file recorded as the sync's write.
        do {
            if let placed = try place(staged.path, at: relative, expecting: expected, durable: durable) { return placed ? written : nil }
            // The kept folder was deleted meanwhile: reached afresh (and made again) once.
            dropFolderHandles()
            guard let placed = try place(staged.path, at: relative, expecting: expected, durable: durable) else {
                throw SyncFileError(relative, "write", ENOENT)
            }
            return placed ? written : nil
        } catch {
            unlink(staged.path)
            throw error
        }
    }

    /// Renames the complete file `temporary` to `relative` if the target is still as `expected`:
    /// true when placed, false when the target changed (the temporary file removed), `nil` when
    /// the kept folder is gone (`ENOENT`: the caller reaches it afresh).
    private func place(_ temporary: String, at relative: String, expecting expected: Expectation, durable: Bool) throws -> Bool? {
        try withParent(relative, create: true) { parentFD, name in
            guard let parent = parentFD else { throw SyncFileError(relative, "create the folder of", ENOENT) }
            // Where nothing may be there, a no-replace rename checks and places in one call, and
            // never replaces a file an editor created since the scan, or anything else found there.
            let placement: Placement?
            if expected == .absent, let renamed = Self.renameWithoutReplacing(AT_FDCWD, temporary, parent, name) {
                placement = renamed
            } else {
                // Re-check at the last moment: an editor may have saved since the scan.
                guard Self.matches(Self.occupant(parent, name), expected) else {
                    unlink(temporary)
                    return false
                }
                // Without that rename, nothing is still replaced where nothing may be: link, then
                // remove the temporary name. A target that may be replaced is renamed over.
                placement = expected == .absent ? Self.placeWithoutReplacing(AT_FDCWD, temporary, parent, name) : nil
                if case .placed? = placement { unlink(temporary) }
            }
            switch placement {
            case .placed?:
                break
            case .occupied?:
                unlink(temporary)
                return false
            case .failed(ENOENT)?:
                return nil
            case .failed(let code)?:
                unlink(temporary)
                throw SyncFileError(relative, "write", code)
            case .unsupported?, nil:
                // No hard links here (FAT, some network mounts), or a target to replace.
                guard renameat(AT_FDCWD, temporary, parent, name) == 0 else {
                    let code = errno
                    if code == ENOENT { return nil }
                    unlink(temporary)
                    throw SyncFileError(relative, expected == .absent ? "write" : "replace", code)
                }
            }
            if durable || !Self.defersDurability { fsync(parent) }
            return true
        }
    }

    /// Moves the file at `from` to `to` (which must be free) if `from` is still as expected.
    /// - Returns: the moved file's metadata, or `nil` when either end changed.
    func move(_ from: String, to: String, expecting expected: FileStat) throws -> FileStat? {
        let (sourceFD, sourceName) = try openParent(from, create: false)
        guard let source = sourceFD else { return nil }
        defer { close(source) }
        let (targetFD, targetName) = try openParent(to, create: true)
        guard let target = targetFD else { return nil }
        defer { close(target) }
        guard Self.occupant(source, sourceName) == .file(expected), Self.occupant(target, targetName) == .none else { return nil }
        switch Self.placeWithoutReplacing(source, sourceName, target, targetName) {
        case .placed:
            unlinkat(source, sourceName, 0)
        case .occupied:
            return nil
        case .failed(let code):
            throw SyncFileError(to, "move to", code)
        case .unsupported:
            guard renameat(source, sourceName, target, targetName) == 0 else { throw SyncFileError(to, "move to", errno) }
        }
        if !Self.defersDurability {
            fsync(target)
            fsync(source)
        }
        pruneEmptyFolders(above: from)
        guard case .file(let moved) = Self.occupant(target, targetName) else { return .unknown }
        return moved
    }

    /// Removes the file at `relative` if it is still as expected; true when it is gone.
    func remove(_ relative: String, expecting expected: FileStat) throws -> Bool {
        let (parentFD, name) = try openParent(relative, create: false)
        guard let parent = parentFD else { return true }
        defer { close(parent) }
        switch Self.occupant(parent, name) {
        case .none: return true
        case .file(let current) where current == expected:
            guard unlinkat(parent, name, 0) == 0 else { throw SyncFileError(relative, "remove", errno) }
            if !Self.defersDurability { fsync(parent) }
            pruneEmptyFolders(above: relative)
            return true
        default: return false
        }
    }

    /// Removes the folders of `relative` that sync emptied, deepest first, as git does: a note
    /// moved or deleted elsewhere does not leave its empty folder behind. Each folder is removed
    /// relative to its parent, reached as every other operation reaches it (never through a
    /// link); removing a directory never removes one with anything in it (hidden files
    /// included) and never follows a link.
    func pruneEmptyFolders(above relative: String) {
        dropFolderHandles()  // a folder kept open may be the one removed here
        var segments = relative.split(separator: "/").dropLast()
        while !segments.isEmpty {
            guard let (parentFD, name) = try? openParent(segments.joined(separator: "/"), create: false),
                  let parent = parentFD else { return }
            let removed = unlinkat(parent, name, AT_REMOVEDIR) == 0
            close(parent)
            guard removed else { return }
            segments = segments.dropLast()
        }
    }

    /// Opens the folder holding `relative`, one segment at a time without following links.
    /// - Returns: its descriptor (`nil` when a folder is missing and `create` is false) and the last segment.
    func openParent(_ relative: String, create: Bool) throws -> (Int32?, String) {
        let segments = relative.split(separator: "/").map(String.init)
        guard let name = segments.last, !segments.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw SyncFileError(relative, "resolve", EINVAL)
        }
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SyncFileError(root, "open", errno) }
        for segment in segments.dropLast() {
            var next = openat(fd, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT {
                guard create else {
                    close(fd)
                    return (nil, name)
                }
                if mkdirat(fd, segment, 0o755) != 0 && errno != EEXIST {
                    let code = errno
                    close(fd)
                    throw SyncFileError(relative, "create a folder for", code)
                }
                next = openat(fd, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let code = errno
            close(fd)
            guard next >= 0 else {
                // ELOOP or ENOTDIR: a link or a file where a folder should be. Never followed.
                throw SyncFileError(relative, "reach", code, unsafe: code == ELOOP || code == ENOTDIR)
            }
            fd = next
        }
        return (fd, name)
    }

    static func occupant(_ parent: Int32, _ name: String) -> Occupant {
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT ? .none : .other }
        return info.st_mode & S_IFMT == S_IFREG ? .file(fileStat(info)) : .other
    }

    private static func matches(_ occupant: Occupant, _ expected: Expectation) -> Bool {
        switch (occupant, expected) {
        case (.none, .absent): true
        case (.file(let now), .file(let then)): now == then
        default: false
        }
    }

    static func fileStat(_ info: stat) -> FileStat {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return FileStat(size: Int64(info.st_size), mtimeNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec),
                        inode: UInt64(info.st_ino))
    }
}

/// A file operation in the notes folder that failed, with the path, the step and the reason.
struct SyncFileError: Error, Sendable, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32
    /// The path leads through a link or a file: refused as unsafe rather than failed.
    var unsafe: Bool

    init(_ path: String, _ operation: String, _ code: Int32, unsafe: Bool = false) {
        self.path = path
        self.operation = operation
        self.code = code
        self.unsafe = unsafe
    }

    var description: String {
        unsafe ? "refused \(path): a folder on its path is a symbolic link or a file"
            : "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
