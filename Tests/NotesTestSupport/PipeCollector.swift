import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Everything a child writes to a pipe, read as it comes by one thread of its own parked in
/// `read(2)` until the pipe ends (the child and whatever shared the pipe are gone).
///
/// Not `FileHandle.readabilityHandler`: on Linux that arms a libdispatch read source on a copy of
/// the descriptor, and handlers set up and torn down on many threads at once corrupt
/// libdispatch's epoll bookkeeping (swift-corelibs-libdispatch issue #949). The test process
/// crashed in `_dispatch_event_loop_drain` (a null dereference on libdispatch's manager thread)
/// while the PostgreSQL pass started and stopped servers. A thread per pipe uses no dispatch source.
public final class PipeCollector: Sendable {
    private struct State {
        var data = Data()
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Keep only the last this many bytes (a long-running child's log), or everything.
    private let limit: Int?

    /// Starts reading `handle` (kept open by the reading thread until the pipe ends).
    public init(_ handle: FileHandle, keepingLast limit: Int? = nil) {
        self.limit = limit
        let thread = Thread { [self] in
            withExtendedLifetime(handle) { readToEnd(handle.fileDescriptor) }
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// What was read so far.
    public var data: Data {
        state.withLock { $0.data }
    }

    /// What was read so far, as UTF-8 text.
    public var text: String {
        String(decoding: data, as: UTF8.self)
    }

    /// Returns once the pipe has ended and everything in it was read: after the child exited,
    /// the last lines it wrote are in `data`.
    public func finished() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
    }

    private func readToEnd(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            state.withLock { state in
                state.data.append(contentsOf: buffer[..<count])
                if let limit, state.data.count > limit { state.data = Data(state.data.suffix(limit)) }
            }
        }
    }
}
