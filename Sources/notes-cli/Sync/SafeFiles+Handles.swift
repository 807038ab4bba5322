import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folders a page of downloads writes into, kept open between its files.
///
/// Why: a file written reaches its folder twice (once to look at the target, once to place
/// the file), and opening the root and every folder on the way each time would be eight of
/// the nineteen system calls a note costs in a 10,000-note clone. The root and the folders directly
/// under it are kept here once reached (as `openParent` reaches any folder: never through a
/// link), and each use of a kept folder first checks that the name in the root still is that
/// folder (one `fstatat` without following links): a folder the user deleted, moved away or
/// replaced by a link meanwhile is reached afresh, which refuses a link. Deeper folders
/// are reached afresh every time. Everything kept is dropped at every `flush()` (once a page)
/// and before sync removes a folder.
///
/// At most `limit` are kept (a page may touch hundreds of folders; descriptors are a bounded
/// resource). Sync writes with one task: the lock keeps the table sound, but a descriptor is
/// closed only by `keep` and `closeAll`, which nothing calls while another file operation of the
/// same folder is under way.
final class FolderHandles: Sendable {
    /// A kept folder and the identity it had when reached.
    struct Handle {
        var fd: Int32
        var device: UInt64
        var inode: UInt64
    }

    private let table = Mutex<[String: Handle]>([:])
    static let limit = 64

    deinit {
        closeAll()
    }

    /// The kept handle of the folder `folder` (`""` for the root), if any.
    func handle(of folder: String) -> Handle? {
        table.withLock { $0[folder] }
    }

    /// Keeps `fd` as the folder `folder`'s descriptor; false when it cannot be identified (the
    /// caller then uses it once and closes it).
    func keep(_ fd: Int32, for folder: String) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let handle = Handle(fd: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        var evicted: [Int32] = []
        table.withLock { handles in
            if handles.count >= Self.limit {
                // The root stays: every other folder is reached from it.
                evicted = handles.filter { $0.key != "" }.map(\.value.fd)
                handles = handles.filter { $0.key == "" }
            }
            if let earlier = handles.updateValue(handle, forKey: folder) { evicted.append(earlier.fd) }
        }
        for old in evicted { close(old) }
        return true
    }

    /// Closes and forgets the folder `folder`'s descriptor.
    func drop(_ folder: String) {
        if let gone = table.withLock({ $0.removeValue(forKey: folder) }) { close(gone.fd) }
    }

    /// Closes every kept descriptor.
    func closeAll() {
        let all = table.withLock { handles -> [Int32] in
            defer { handles.removeAll() }
            return handles.values.map(\.fd)
        }
        for fd in all { close(fd) }
    }
}

extension SafeFiles {
    /// Runs `body` with the folder holding `relative` (`nil` when a folder is missing and
    /// `create` is false) and the last segment, reached as `openParent` reaches it; the root and
    /// the folders directly under it are kept open for the next file (`FolderHandles`). `body`
    /// must not close the descriptor.
    func withParent<T>(_ relative: String, create: Bool, _ body: (Int32?, String) throws -> T) throws -> T {
        let cut = relative.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = cut.map { String(relative[..<$0]) } ?? ""
        let name = cut.map { String(relative[relative.index(after: $0)...]) } ?? relative
        // Bytes, not `contains("/")`: with Foundation imported that is `NSString.range(of:)`,
        // a CFString round trip twice a file (2 % of a clone's CPU).
        guard !folder.utf8.contains(UInt8(ascii: "/")), !name.isEmpty, name != ".", name != "..", folder != ".", folder != ".." else {
            // Deeper (or refused by `openParent`): reached afresh.
            let (parentFD, parentName) = try openParent(relative, create: create)
            defer { if let parentFD { close(parentFD) } }
            return try body(parentFD, parentName)
        }
        if let kept = keptFolder(folder) { return try body(kept, name) }
        if !folder.isEmpty, handles.handle(of: "") == nil {
            // The root, from which each use of a kept folder is checked.
            let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if rootFD >= 0, !handles.keep(rootFD, for: "") { close(rootFD) }
        }
        let (parentFD, parentName) = try openParent(relative, create: create)
        guard let parent = parentFD else { return try body(nil, parentName) }
        guard handles.keep(parent, for: folder) else {
            defer { close(parent) }
            return try body(parent, parentName)
        }
        return try body(parent, parentName)
    }

    /// The kept descriptor of `folder` (the root, or a folder directly under it) if the name in
    /// the root still is that folder; a folder deleted, moved or replaced is forgotten.
    private func keptFolder(_ folder: String) -> Int32? {
        guard let handle = handles.handle(of: folder) else { return nil }
        if folder.isEmpty { return handle.fd }
        guard let root = handles.handle(of: "") else {
            handles.drop(folder)
            return nil
        }
        var info = stat()
        guard fstatat(root.fd, folder, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR,
              UInt64(info.st_dev) == handle.device, UInt64(info.st_ino) == handle.inode else {
            handles.drop(folder)
            return nil
        }
        return handle.fd
    }

    /// Forgets the kept folders: sync is about to remove or move something, or a page is done.
    func dropFolderHandles() {
        handles.closeAll()
    }

    /// Renames `fromName` (in `fromFolder`) to `toName` (in `toFolder`) only if nothing is
    /// there: `renameat2(RENAME_NOREPLACE)`, one call where a hard link and an unlink were two.
    /// `nil` when the kernel or the filesystem has no such rename (the caller links instead).
    static func renameWithoutReplacing(_ fromFolder: Int32, _ fromName: String, _ toFolder: Int32, _ toName: String) -> Placement? {
        #if os(Linux)
        guard let renameat2 = Self.renameat2 else { return nil }
        if renameat2(fromFolder, fromName, toFolder, toName, 1 /* RENAME_NOREPLACE */) == 0 { return .placed }
        switch errno {
        case EEXIST: return .occupied
        case EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP: return nil
        case let code: return .failed(code)
        }
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// `renameat2(2)`: Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc module
    /// does not set, so it is looked up at run time (present since glibc 2.28).
    private static let renameat2: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)
    }()
    #endif
}
