import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a request body goes when it must not be held in memory (an upload chunk of several
/// MiB): the server hands it each piece as it arrives, instead of collecting the body.
///
/// A responder offers one from `admitBody(of:)` (`BodyAdmission.stream`); the handler finds it
/// again as `HTTPRequest.bodySink` and takes what was written. A body that never reaches a
/// handler (refused, too long, the client went away) is `discard()`ed when the request ends.
/// The server calls `write` and `discard` only from the connection's own thread, one at a time.
protocol RequestBodySink: AnyObject, Sendable {
    /// Stores the next piece of the body; false when it could not be stored (the request is
    /// then answered 507 and the rest of the body discarded).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Removes whatever was stored, unless a handler took it already; safe to call again.
    func discard()
}

/// A file to answer with, sent by libmicrohttpd straight from the descriptor (`sendfile` where
/// it can), so a download of any size never passes through the server's memory.
///
/// libmicrohttpd takes the descriptor when the response is queued and closes it when done;
/// a response that is never queued closes it here.
final class ResponseFile: Sendable {
    /// The first byte to send.
    let offset: Int64
    /// How many bytes to send from `offset`.
    let length: Int64
    private let descriptor: Mutex<Int32?>

    /// Takes ownership of `descriptor`, an open file readable from `offset` for `length` bytes.
    init(descriptor: Int32, offset: Int64, length: Int64) {
        self.descriptor = Mutex(descriptor)
        self.offset = offset
        self.length = length
    }

    /// The descriptor, handed over once (to libmicrohttpd); nil after.
    func take() -> Int32? {
        descriptor.withLock { fd in
            defer { fd = nil }
            return fd
        }
    }

    deinit {
        if let fd = take() { close(fd) }
    }
}
