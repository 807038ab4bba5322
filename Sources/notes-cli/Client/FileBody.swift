#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body sent from a range of an open file: libcurl's read callback reads it with
/// `pread` straight into its send buffer as the request goes out, so an upload chunk is never
/// copied into memory of its own first, and sending begins with its first bytes rather than
/// after the whole chunk was read. Sent again as it is (a retry, a replay after a refresh):
/// each transfer reads the range from its start.
struct FileBody: Sendable {
    let file: ReadableFile
    let offset: Int64
    let length: Int64
}

/// A regular file open for reading, closed once no request or upload holds it any more: the
/// descriptor stays open for as long as any transfer may read from it.
final class ReadableFile: Sendable {
    let descriptor: Int32

    /// Takes ownership of `descriptor`.
    init(taking descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
