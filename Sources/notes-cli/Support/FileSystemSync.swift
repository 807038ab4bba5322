#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes everything written so far on one filesystem durable with a single `syncfs(2)`.
///
/// Sync and export write many small files; an `fsync` each costs a journal commit each
/// (about 3 ms here), one `syncfs` per batch costs one. Callers sync before they record the
/// writes (the sync index, the export manifest), so nothing vouches for a file not on disk.
enum FileSystemSync {
    /// Flushes the filesystem holding `folder`; falls back to `sync()` when that is not possible.
    static func flush(filesystemOf folder: String) {
        #if os(Linux)
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, let syncfs else {
            if fd >= 0 { close(fd) }
            sync()
            return
        }
        _ = syncfs(fd)
        close(fd)
        #else
        sync()
        #endif
    }

    #if os(Linux)
    /// `syncfs(2)`: Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc module does
    /// not set, so it is looked up at run time (present since glibc 2.14).
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()
    #endif
}
