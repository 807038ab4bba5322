#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file with no name, private to this process: where `PostgresBlobStore` puts bytes on their way
/// into or out of the database (a chunk as it arrives, a content on its way to a client), so they
/// are never held whole in memory.
///
/// Made with `O_TMPFILE` where the file system has it (else created under a random name and
/// unlinked at once): nothing is left behind by a crash, so there is nothing to sweep. The bytes
/// live on disk under `folder`, not in memory as a `memfd` would keep them.
final class UnlinkedFile: @unchecked Sendable {
    // @unchecked: used by one thread at a time (a connection's thread, or one handler call);
    // `close()` only guards against closing twice.
    private(set) var descriptor: Int32
    private(set) var size = 0

    /// A new empty file under `folder`.
    init(in folder: String) throws(BlobStoreError) {
        var fd = open(folder, O_RDWR | O_CLOEXEC | Self.temporaryFileFlag, 0o600)
        if fd < 0 {
            // No O_TMPFILE here (an older kernel, a file system without it): a random name,
            // created exclusively, never followed through a link, and gone from the folder at once.
            let name = folder + "/.notes-" + String(UInt64.random(in: .min ... .max), radix: 16)
            fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw BlobStoreError(operation: "create a temporary file in \(folder)", code: errno) }
            unlink(name)
        }
        descriptor = fd
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY` in Linux's headers, the same bits on every
    /// architecture Swift runs Linux on); 0 elsewhere, so the fallback is taken.
    private static var temporaryFileFlag: Int32 {
        #if os(Linux)
        0o20000000 | O_DIRECTORY
        #else
        0
        #endif
    }

    /// Appends all of `bytes`; false on failure (`errno` says why).
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        size += bytes.count
        return true
    }

    /// Hands the file's bytes to `body` in pieces of at most `pieceBytes`, in order, with each
    /// piece's number; an empty file is one empty piece (zero pieces would mean "none stored").
    func forEachPiece(of pieceBytes: Int, _ body: (_ piece: Int, _ bytes: [UInt8]) throws -> Void) throws {
        let count = max(1, (size + pieceBytes - 1) / pieceBytes)
        for piece in 0..<count {
            try body(piece, try read(at: piece * pieceBytes, count: min(pieceBytes, size - piece * pieceBytes)))
        }
    }

    /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
    func read(at offset: Int, count: Int) throws(BlobStoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got == 0 { break }
            guard got > 0 else {
                if errno == EINTR { continue }
                throw BlobStoreError(operation: "read back a temporary file", code: errno)
            }
            filled += got
        }
        if filled < count { bytes.removeLast(count - filled) }
        return bytes
    }

    /// Hands the descriptor over, positioned at the start, for a `ContentFile`; this object no
    /// longer closes it.
    func takeDescriptor() throws(BlobStoreError) -> Int32 {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw BlobStoreError(operation: "rewind a temporary file", code: errno) }
        let fd = descriptor
        descriptor = -1
        return fd
    }

    /// Closes the file, which frees its space (again: nothing).
    func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    deinit { close() }
}
