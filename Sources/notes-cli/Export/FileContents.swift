import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole small files read with `open`, `fstat` and one `read`: the notes an export renders, and
/// the pages it finds in OUTDIR.
///
/// `FileManager.contents(atPath:)` and the Foundation URL built to reach each file were a tenth
/// of exporting 10,000 notes of 2 KB.
enum FileContents {
    /// The bytes of the file at `path` (following symbolic links, as `FileManager` does), or nil
    /// when it cannot be opened or read, or is not a regular file.
    static func read(atPath path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // One byte more than its size shows whether the file grew since `fstat`.
        let capacity = Int(info.st_size) + 1
        var data = Data(count: capacity)
        let count = data.withUnsafeMutableBytes { POSIXIO.readAll(fd, into: $0) }
        guard count < capacity else { return FileManager.default.contents(atPath: path) }
        data.count = count
        return data
    }
}
