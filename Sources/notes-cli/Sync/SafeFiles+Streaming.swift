import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading files too large to hold whole (attachments): hashed through a fixed buffer, sent
/// chunk by chunk, each read checked against the metadata the scan saw.
extension SafeFiles {
    /// The SHA-256 of the regular file at `relative`, read through a fixed buffer, with its
    /// metadata as read (the metadata before and after must agree, else the file changed while
    /// being read and `ESTALE` is thrown: hashed again next time).
    func hash(_ relative: String) throws -> (hash: String, stat: FileStat) {
        let fd = try openFile(relative, "read")
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw SyncFileError(relative, "read", errno) }
        var hasher = SHA256Hasher()
        POSIXIO.hashToEnd(fd, expectedBytes: Int64(before.st_size), into: &hasher)
        var after = stat()
        guard fstat(fd, &after) == 0 else { throw SyncFileError(relative, "read", errno) }
        let stat = Self.fileStat(after)
        guard Self.fileStat(before) == stat else { throw SyncFileError(relative, "read (it changed while read)", ESTALE) }
        return (Hex.encode(hasher.finalize()), stat)
    }

    /// `count` bytes at `offset` of the file at `relative`, if the file still has the metadata
    /// `expected` (else `nil`: it changed since it was hashed, and is sent next sync).
    func readRange(_ relative: String, offset: Int64, count: Int, expecting expected: FileStat) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let complete = try bytes.withUnsafeMutableBytes { try readRange(relative, offset: offset, into: $0, expecting: expected) }
        return complete ? bytes : nil
    }

    /// Fills `buffer` from `offset` of the file at `relative`: false when the file no longer has
    /// the metadata `expected`, or shrank meanwhile.
    func readRange(_ relative: String, offset: Int64, into buffer: UnsafeMutableRawBufferPointer,
                   expecting expected: FileStat) throws -> Bool {
        let fd = try openFile(relative, "read")
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SyncFileError(relative, "read", errno) }
        guard Self.fileStat(info) == expected else { return false }
        var done = 0
        while done < buffer.count {
            let read = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            done += read
        }
        return done == buffer.count
    }

    /// Opens the regular file at `relative` for reading, never through a link.
    private func openFile(_ relative: String, _ operation: String) throws -> Int32 {
        let (parentFD, name) = try openParent(relative, create: false)
        guard let parent = parentFD else { throw SyncFileError(relative, operation, ENOENT) }
        let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        let openError = errno
        close(parent)
        guard fd >= 0 else { throw SyncFileError(relative, operation, openError) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw SyncFileError(relative, operation, EINVAL)
        }
        return fd
    }
}
