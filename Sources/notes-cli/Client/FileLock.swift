import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a lock file, so two `notes` processes rotating tokens at the same
/// time take turns instead of one overwriting the other's newer refresh token.
///
/// Acquired by polling with `LOCK_NB` and `Task.sleep`: a blocking `flock` would park one of the
/// few cooperative threads for as long as another process holds the lock.
struct FileLock: ~Copyable {
    private let descriptor: Int32

    /// Opens (creating 0600) `path` and waits for the exclusive lock, up to `timeout` seconds.
    /// - Throws: `CredentialsError` when the file cannot be opened or the lock is not granted in time.
    static func acquire(at path: String, timeout: Double = 60) async throws -> FileLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CredentialsError.lockNotOpened(path: path, errno: errno)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(fd)
                throw CredentialsError.lockFailed(path: path, errno: error)
            }
            guard Date() < deadline else {
                close(fd)
                throw CredentialsError.lockTimedOut(path: path, seconds: Int(timeout))
            }
            do {
                try await Task.sleep(for: .milliseconds(15))
            } catch {
                close(fd)
                throw error
            }
        }
        return FileLock(descriptor: fd)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        // Closing the descriptor releases the lock; nothing here can usefully fail.
        close(descriptor)
    }
}
