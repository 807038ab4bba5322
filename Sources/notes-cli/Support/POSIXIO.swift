import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-buffer reads and writes on a file descriptor: `read(2)` and `write(2)` may stop short
/// or be interrupted by a signal, so every caller that writes a file needs the same loop.
enum POSIXIO {
    /// Writes every byte of `bytes` to `fd`.
    /// - Returns: 0 when all were written, else the `errno` that stopped it.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        let (done, failure) = repeatTransfer(bytes.count) { systemWrite(fd, base + $0, bytes.count - $0) }
        return done == bytes.count ? 0 : failure ?? EIO
    }

    /// Reads from `fd` into `buffer` until it is full or the file ends (or fails).
    /// - Returns: how many bytes were read.
    static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return repeatTransfer(buffer.count) { systemRead(fd, base + $0, buffer.count - $0) }.done
    }

    /// Reads from `fd` at `offset` into `buffer` until it is full or the file ends (or fails),
    /// leaving the descriptor's position where it was.
    /// - Returns: how many bytes were read.
    static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return repeatTransfer(buffer.count) { pread(fd, base + $0, buffer.count - $0, off_t(offset) + off_t($0)) }.done
    }

    /// Calls `transfer` (given how many bytes are done, it moves more and says how many: 0 at
    /// the end of the file, or -1 with `errno` set) until `count` bytes are moved, again after
    /// each signal that interrupts it.
    /// - Returns: how many bytes were moved, and the `errno` of the failure that stopped it
    ///   early (nil when all were moved or the file ended).
    private static func repeatTransfer(_ count: Int, _ transfer: (Int) -> Int) -> (done: Int, failure: Int32?) {
        var done = 0
        while done < count {
            let moved = transfer(done)
            if moved < 0 && errno == EINTR { continue }
            if moved < 0 { return (done, errno) }
            if moved == 0 { break }
            done += moved
        }
        return (done, nil)
    }

    /// The largest buffer `hashToEnd` reads through.
    static let hashBufferBytes = 1 << 20

    /// Reads `fd` from where it stands to its end into `hasher`, through a buffer no larger
    /// than the `expectedBytes` still to come (plus the byte that shows the end) and never
    /// zeroed: hashing a folder of small images, or resuming a download of nothing yet, must
    /// not clear a megabyte per file.
    /// - Returns: how many bytes were hashed.
    @discardableResult
    static func hashToEnd(_ fd: Int32, expectedBytes: Int64, into hasher: inout SHA256Hasher) -> Int64 {
        let capacity = Int(min(Int64(hashBufferBytes), max(expectedBytes + 1, 4096)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = readAll(fd, into: buffer)
            if count > 0 { hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            total += Int64(count)
            if count < buffer.count { return total }
        }
    }

    // The module-qualified names keep these clear of methods called read/write on callers' types.
    private static func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    private static func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }
}
