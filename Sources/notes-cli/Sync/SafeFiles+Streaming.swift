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
        let hashed = try hash(relative, chunkBytes: nil)
        return (hashed.hash, hashed.stat)
    }

    /// `hash(_:)`, and with `chunkBytes`, a file larger than that (it will be sent in chunks of that size) also
    /// has each chunk's SHA-256 taken from the same read, for the chunks' `Content-Digest`. The
    /// chunks are hashed on a thread of their own while this one hashes the whole: the scan of
    /// a large file has the second core to itself (the server waits for the upload), and the
    /// upload, where client and server keep both cores busy, does not hash each chunk again
    /// (on a 1 GiB upload, half a second of the client's CPU). Both threads read the one
    /// descriptor: this one from its position, that one only at offsets (`pread`), which leave
    /// the position alone; this one waits for that one before the descriptor closes (a thread
    /// outside Swift's pool, so it always finishes).
    func hash(_ relative: String, chunkBytes: Int?) throws -> (hash: String, stat: FileStat, chunks: ChunkDigests?) {
        let fd = try openFile(relative, "read")
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw SyncFileError(relative, "read", errno) }
        let size = Int64(before.st_size)
        let chunkWork = chunkBytes.flatMap { chunkBytes in
            chunkBytes > 0 && size > Int64(chunkBytes) ? ThreadWork { ChunkDigests.hash(fd, size: size, chunkSize: chunkBytes) } : nil
        }
        defer { _ = chunkWork?.wait() }  // runs before the `close` above, however this returns
        var hasher = SHA256Hasher()
        POSIXIO.hashToEnd(fd, expectedBytes: size, into: &hasher)
        let chunks = try chunkWork?.wait().get() ?? nil
        var after = stat()
        guard fstat(fd, &after) == 0 else { throw SyncFileError(relative, "read", errno) }
        let stat = Self.fileStat(after)
        guard Self.fileStat(before) == stat else { throw SyncFileError(relative, "read (it changed while read)", ESTALE) }
        return (Hex.encode(hasher.finalize()), stat, chunks)
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
        return POSIXIO.readAll(fd, into: buffer, at: offset) == buffer.count
    }

    /// The file at `relative` opened to be sent (`FileBody`), if it still has the metadata
    /// `expected` (else `nil`: it changed since it was hashed, and is sent next sync). Bytes
    /// changed in place after this are caught by the digests they are sent with.
    func openForSending(_ relative: String, expecting expected: FileStat) throws -> ReadableFile? {
        let file = ReadableFile(taking: try openFile(relative, "read"))
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { throw SyncFileError(relative, "read", errno) }
        return Self.fileStat(info) == expected ? file : nil
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

/// The chunk digests the scan took of one file, and the content and metadata they belong to:
/// used only for an upload of that content from a file that still has that metadata.
struct ScannedChunks: Sendable {
    var hash: String
    var stat: FileStat
    var digests: ChunkDigests
}

/// The SHA-256 of each chunk of a content, as the scan read it (`SafeFiles.hash(_:chunkBytes:)`),
/// so the upload sends each chunk's digest without hashing the chunk again.
struct ChunkDigests: Sendable, Equatable {
    /// The chunk size the digests were taken with: they serve only an upload of that chunk size.
    var chunkSize: Int
    var digests: [[UInt8]]

    /// The digest of chunk `index` of an upload in chunks of `chunkSize`, if these are its digests.
    func digest(of index: Int, chunkSize: Int) -> [UInt8]? {
        guard chunkSize == self.chunkSize, digests.indices.contains(index) else { return nil }
        return digests[index]
    }

    /// The digests of the `size` bytes of `fd` in chunks of `chunkSize`, read at their offsets;
    /// nil when the file ends early (it is changing: the scan's own check throws it out).
    static func hash(_ fd: Int32, size: Int64, chunkSize: Int) -> ChunkDigests? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(chunkSize, POSIXIO.hashBufferBytes), alignment: 16)
        defer { buffer.deallocate() }
        var digests: [[UInt8]] = []
        var offset: Int64 = 0
        while offset < size {
            let length = min(Int64(chunkSize), size - offset)
            guard let digest = digest(fd, offset: offset, length: length, through: buffer) else { return nil }
            digests.append(digest)
            offset += length
        }
        return ChunkDigests(chunkSize: chunkSize, digests: digests)
    }

    /// The SHA-256 of the `length` bytes of `fd` at `offset` (read with `pread`); nil when the
    /// file ends early.
    static func digest(_ fd: Int32, offset: Int64, length: Int64) -> [UInt8]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(length, Int64(POSIXIO.hashBufferBytes))), alignment: 16)
        defer { buffer.deallocate() }
        return digest(fd, offset: offset, length: length, through: buffer)
    }

    private static func digest(_ fd: Int32, offset start: Int64, length: Int64, through buffer: UnsafeMutableRawBufferPointer) -> [UInt8]? {
        var hasher = SHA256Hasher()
        var offset = start
        let end = start + length
        while offset < end {
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(buffer.count), end - offset))])
            guard POSIXIO.readAll(fd, into: piece, at: offset) == piece.count else { return nil }
            hasher.update(UnsafeRawBufferPointer(piece))
            offset += Int64(piece.count)
        }
        return hasher.finalize()
    }
}
