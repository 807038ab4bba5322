import Foundation
import NotesCore
import Synchronization

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
/// `SafeFiles`), `discard()` or `keepForResume()` consumes it.
final class StagedFile {
    /// The largest single `write(2)`: on Linux 6.x with large folios, writes of 8 MiB into the
    /// page cache were measured 5 to 18 times costlier in kernel time than the same bytes in
    /// 1 MiB writes (a 1 GiB clone spent most of its time there).
    static let writePieceBytes = 1 << 20

    /// The absolute path of the temporary file.
    let path: String
    /// Where it is headed, for messages.
    let target: String
    private var fd: Int32
    private var hasher = SHA256Hasher()
    /// Bytes written so far.
    private(set) var size: Int64 = 0

    /// Whether appended bytes are hashed (`finalHash()`).
    private let hashing: Bool

    /// Creates an empty temporary file with `mode` in `scratch`; `hashing: false` when the
    /// caller never asks for `finalHash()` (it wrote bytes it had checked already).
    init(scratch: String, for target: String, mode: mode_t = 0o644, hashing: Bool = true) throws {
        self.target = target
        self.hashing = hashing
        path = scratch + "/" + Self.freshName()
        fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SyncFileError(target, "write", errno) }
    }

    /// Opens the partial download of content `hash` (`d-HASH` in `scratch`), creating it empty
    /// if there is none: a download cut short (a killed sync, a lost connection) leaves it
    /// there, and the next attempt goes on from its length instead of from the start. The
    /// bytes already there are read back through the hash (no network), so the final check
    /// against `hash` covers them; a partial longer than `total` bytes is started afresh.
    init(resuming hash: String, total: Int64, scratch: String, for target: String, mode: mode_t = 0o644) throws {
        self.target = target
        hashing = true
        path = scratch + "/" + Self.partialPrefix + hash
        fd = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SyncFileError(target, "write", errno) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, fchmod(fd, mode) == 0 else {
            let code = errno
            discard()
            throw SyncFileError(target, "write", code == 0 ? EINVAL : code)
        }
        if Int64(info.st_size) > total {
            guard ftruncate(fd, 0) == 0 else {
                let code = errno
                discard()
                throw SyncFileError(target, "write", code)
            }
        } else if info.st_size > 0 {
            size = POSIXIO.hashToEnd(fd, expectedBytes: Int64(info.st_size), into: &hasher)
        }
    }

    /// The name prefix of partial downloads in the scratch directory, which a new sync keeps.
    static let partialPrefix = "d-"

    /// A name no other temporary file has: this process's random tag and a counter. A `UUID`
    /// each read `/dev/urandom` (open, read, close) for every note of a clone.
    private static func freshName() -> String {
        "w-\(processTag)-\(namesGiven.add(1, ordering: .relaxed).newValue)"
    }

    private static let processTag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private static let namesGiven = Atomic<Int>(0)

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Appends `bytes`.
    func append(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Appends `buffer`, in writes of at most `writePieceBytes`.
    func append(_ buffer: UnsafeRawBufferPointer) throws {
        if hashing { hasher.update(buffer) }
        var start = 0
        while start < buffer.count {
            let end = min(start + Self.writePieceBytes, buffer.count)
            let code = POSIXIO.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            guard code == 0 else { throw SyncFileError(target, "write", code) }
            start = end
        }
        size += Int64(buffer.count)
    }

    /// The SHA-256 hex of everything appended (call once, when complete; only when hashing).
    func finalHash() -> String {
        precondition(hashing, "a staged file made with hashing: false has no hash")
        return Hex.encode(hasher.finalize())
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

    /// Closes the file and leaves it for the next attempt to resume (`init(resuming:)`): the
    /// download was cut short, and what arrived is good as far as it goes.
    func keepForResume() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
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
