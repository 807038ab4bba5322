import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file being written in the folder's scratch directory (`.notes/tmp`, inside the folder and
/// so on its filesystem), before `SafeFiles.install` renames it into place whole.
///
/// Bytes are appended piece by piece and hashed as they go, so a download of any size is
/// written and verified through one chunk of memory. Exactly one of `install` (through
/// `SafeFiles`) or `discard()` consumes it.
final class StagedFile {
    /// The absolute path of the temporary file.
    let path: String
    /// Where it is headed, for messages.
    let target: String
    private var fd: Int32
    private var hasher = SHA256Hasher()
    /// Bytes written so far.
    private(set) var size: Int64 = 0

    /// Creates an empty temporary file with `mode` in `scratch`.
    init(scratch: String, for target: String, mode: mode_t = 0o644) throws {
        self.target = target
        path = scratch + "/w-" + UUID().uuidString
        fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SyncFileError(target, "write", errno) }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Appends `bytes`.
    func append(_ bytes: some ContiguousBytes) throws {
        let code = bytes.withUnsafeBytes { buffer -> Int32 in
            hasher.update(buffer)
            return POSIXIO.writeAll(fd, buffer)
        }
        guard code == 0 else { throw SyncFileError(target, "write", code) }
        size += Int64(bytes.withUnsafeBytes(\.count))
    }

    /// The SHA-256 hex of everything appended (call once, when complete).
    func finalHash() -> String {
        Hex.encode(hasher.finalize())
    }

    /// Closes the file, fsync'd first when `durable`, and returns its metadata as it will be once
    /// placed (a rename keeps inode, size and modification time). Throws when a write, the
    /// fsync or the stat failed.
    @discardableResult
    func finish(durable: Bool) throws -> FileStat {
        guard fd >= 0 else { throw SyncFileError(target, "write", EBADF) }
        var info = stat()
        let ok = (!durable || fsync(fd) == 0) && fstat(fd, &info) == 0
        let code = errno
        close(fd)
        fd = -1
        guard ok else { throw SyncFileError(target, "write", code) }
        return SafeFiles.fileStat(info)
    }

    /// Removes the temporary file: the download failed or did not verify.
    func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(path)
    }
}
