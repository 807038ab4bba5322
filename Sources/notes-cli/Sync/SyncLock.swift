import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-folder sync lock (docs/architecture.md, Sync invariants 9): an exclusive `flock` on `.notes/lock`, held for the
/// whole sync. The kernel releases it when the process dies, even by `kill -9`, so a crashed
/// sync never leaves a stale lock behind.
///
/// A second sync does not wait: it fails at once and says why, as git does for `index.lock`.
final class SyncLock: Sendable {
    private let descriptor: Int32

    /// Who holds a lock, as written into the lock file for the one that finds it taken.
    enum Holder: String, Sendable {
        /// A one-shot command (`notes sync`, `notes resolve`, ...).
        case sync
        /// `notes sync --watch`, which holds the lock for as long as it runs.
        case watcher = "watch"
    }

    /// Takes the lock at `path`, and records the process and `holder` in the file.
    /// - Throws: `LockError` when another sync holds it (naming a watcher and its pid when the
    ///   file says so) or the file cannot be opened.
    init(path: String, holder: Holder = .sync) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LockError.cannotOpen(path: path, errno: errno)
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            defer { close(fd) }
            if code == EWOULDBLOCK { throw LockError.taken(path: path, holder: Self.holder(fd)) }
            throw LockError.cannotLock(path: path, errno: code)
        }
        descriptor = fd
        // Best effort: the lock is the flock, the text only explains it to whoever finds it taken.
        let text = Array("\(getpid()) \(holder.rawValue)\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    /// What the lock file says about its holder: "PID KIND".
    private static func holder(_ fd: Int32) -> (pid: Int32, kind: Holder)? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let fields = String(decoding: bytes[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, let kind = Holder(rawValue: String(fields[1])) else { return nil }
        return (pid, kind)
    }

    deinit {
        // Unlock before closing: a `flock` belongs to the open file, which a child forked at this
        // moment (before its exec closes the copy) still shares, so closing alone can leave the lock held.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
