import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How SafeFiles makes writes durable, and places files without replacing what is there.
extension SafeFiles {
    /// Whether durability is deferred to `flush()`: on Linux one `syncfs` per page costs one
    /// journal commit, where an `fsync` per file costs one each (about 3 ms here, 6 s for a
    /// clone of 2,000 notes). Atomicity does not depend on it: a rename is all or nothing.
    #if os(Linux)
    static let defersDurability = true
    #else
    static let defersDurability = false
    #endif

    /// Makes every write and rename so far durable. Sync calls it before recording them in the
    /// index, so after a power cut the index never vouches for a file that did not reach the disk.
    func flush() {
        dropFolderHandles()
        #if os(Linux)
        FileSystemSync.flush(filesystemOf: scratch)
        #endif
    }

    /// The outcome of linking a file into a place that must be free.
    enum Placement {
        case placed
        /// Something appeared there since the last check; nothing was touched.
        case occupied
        case failed(Int32)
        /// The filesystem has no hard links (FAT, some network mounts): fall back to rename.
        case unsupported
    }

    /// Links `fromName` (in `fromFolder`) at `toName` (in `toFolder`), which fails rather than
    /// replacing anything there: the no-replace rename that `renameat2` gives, which Swift's Glibc
    /// module does not import. The caller removes the source name once placed.
    static func placeWithoutReplacing(_ fromFolder: Int32, _ fromName: String, _ toFolder: Int32, _ toName: String) -> Placement {
        if linkat(fromFolder, fromName, toFolder, toName, 0) == 0 { return .placed }
        switch errno {
        case EEXIST: return .occupied
        case EPERM, EXDEV, ENOTSUP, EOPNOTSUPP, EMLINK: return .unsupported
        case let code: return .failed(code)
        }
    }
}
