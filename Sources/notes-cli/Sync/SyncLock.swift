import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-folder sync lock (DESIGN 4.9): an exclusive `flock` on `.notes/lock`, held for the
/// whole sync. The kernel releases it when the process dies, even by `kill -9`, so a crashed
/// sync never leaves a stale lock behind.
///
/// A second sync does not wait: it fails at once and says why, as git does for `index.lock`.
final class SyncLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock at `path`.
    /// - Throws: `CLIError` when another sync holds it or the file cannot be opened.
    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CLIError.failure("cannot open the sync lock \(path): \(String(cString: strerror(errno)))")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK {
                throw CLIError.failure("another sync is running in this folder (it holds \(path)); try again when it is done")
            }
            throw CLIError.failure("cannot lock \(path): \(String(cString: strerror(code)))")
        }
        descriptor = fd
    }

    deinit {
        // Unlock before closing: a `flock` belongs to the open file, which a child forked at this
        // moment (before its exec closes the copy) still shares, so closing alone can leave the lock held.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
