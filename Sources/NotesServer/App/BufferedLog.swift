import Dispatch
import Foundation
import NotesCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's log on stderr, written in batches by a thread of its own.
///
/// A line is stamped with the time in RFC 3339 UTC when it is logged
/// (`2026-12-01T04:50:26.123Z req=… GET /v1/notes 200 3ms`) and kept in memory; the writer thread
/// writes what is kept `window` after the first line it was woken for, in one `write(2)`.
/// Under load that is one system call for hundreds of lines instead of one per request (the
/// per-request `write(2)` was about 4 % of the server's CPU on `GET /v1/notes/{id}`); on a quiet
/// server a line reaches stderr within `window`.
///
/// No line is lost on a clean stop: `close()` (called before the server exits, on SIGTERM and
/// SIGINT too) writes what is kept and writes any later line at once. A process killed outright
/// loses at most the last `window` of lines. When writing falls behind (a stalled pipe), the
/// thread that logs past `backPressureBytes` kept bytes writes the batch itself, so memory stays
/// bounded and logging slows down with the reader, as it did with a write per line.
final class BufferedLog: Sendable {
    /// How long the writer gathers lines before writing them.
    static let defaultWindow: Duration = .milliseconds(2)
    /// Kept bytes past which a logging thread writes them itself.
    static let defaultBackPressureBytes = 1 << 20

    /// Bytes reserved for each batch (a batch under load is some tens of KiB).
    private static let batchCapacity = 64 * 1024

    private struct Pending {
        var bytes: [UInt8] = []
        /// Whether the writer was woken for what is kept (so the next line need not wake it).
        var writerWoken = false
        /// Set by `close()`: every line from then on is written at once.
        var closed = false
        /// The second `stampPrefix` was made for, and its `2026-12-01T04:50:26.` bytes.
        var stampSecond = Int.min
        var stampPrefix: [UInt8] = []
    }

    private let descriptor: Int32
    private let window: Duration
    private let backPressureBytes: Int
    private let pending = Mutex(Pending())
    /// Held while a batch is taken and written, so batches reach the descriptor in order.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by `close()`: the writer stops gathering and writes at once.
    private let hurry = DispatchSemaphore(value: 0)
    private let writerDone = DispatchSemaphore(value: 0)

    /// Starts the writer thread.
    /// - Parameters:
    ///   - descriptor: where lines go (stderr unless a test passes a pipe); never closed here.
    ///   - window: how long the writer gathers lines after the first before writing them.
    ///   - backPressureBytes: kept bytes past which the logging thread writes them itself.
    init(descriptor: Int32 = STDERR_FILENO, window: Duration = BufferedLog.defaultWindow,
         backPressureBytes: Int = BufferedLog.defaultBackPressureBytes) {
        self.descriptor = descriptor
        self.window = window
        self.backPressureBytes = backPressureBytes
        let thread = Thread { [self] in runWriter() }
        thread.name = "log writer"
        thread.start()
    }

    /// Keeps `line`, stamped with the current time, for the writer (after `close()`: writes it).
    func append(_ line: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (wakeWriter, writeNow) = pending.withLock { state -> (Bool, Bool) in
            Self.appendStamp(seconds: Int(now.tv_sec), milliseconds: Int(now.tv_nsec) / 1_000_000, to: &state)
            state.bytes.append(contentsOf: line.utf8)
            state.bytes.append(UInt8(ascii: "\n"))
            if state.closed || state.bytes.count >= backPressureBytes { return (false, true) }
            guard !state.writerWoken else { return (false, false) }
            state.writerWoken = true
            return (true, false)
        }
        if writeNow {
            flush()
        } else if wakeWriter {
            wake.signal()
        }
    }

    /// Writes every kept line now.
    func flush() {
        writing.withLock { _ in
            // The next batch's room, allocated outside the lock the logging threads take: they
            // then append without regrowing the buffer while they hold it.
            var fresh: [UInt8] = []
            fresh.reserveCapacity(Self.batchCapacity)
            let batch = pending.withLock { state -> [UInt8] in
                state.writerWoken = false
                swap(&state.bytes, &fresh)
                return fresh
            }
            writeAll(batch, to: descriptor)
        }
    }

    /// Writes every kept line, stops the writer, and from now on writes each line as it comes.
    func close() {
        let first = pending.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return flush() }
        hurry.signal()
        wake.signal()
        writerDone.wait()
        flush()
    }

    private func runWriter() {
        while true {
            wake.wait()
            let (seconds, attoseconds) = window.components
            _ = hurry.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
            flush()
            if pending.withLock({ $0.closed }) {
                writerDone.signal()
                return
            }
        }
    }

    /// `2026-12-01T04:50:26.123Z ` (the part up to the second made once a second).
    private static func appendStamp(seconds: Int, milliseconds: Int, to state: inout Pending) {
        if seconds != state.stampSecond {
            let stamp = Array(WireTime.string(fromMilliseconds: Int64(seconds) * 1000).utf8)
            let dot = stamp.lastIndex(of: UInt8(ascii: ".")) ?? stamp.endIndex
            state.stampPrefix = Array(stamp[..<min(dot + 1, stamp.endIndex)])
            state.stampSecond = seconds
        }
        state.bytes.append(contentsOf: state.stampPrefix)
        state.bytes.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        state.bytes.append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        state.bytes.append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        state.bytes.append(UInt8(ascii: "Z"))
        state.bytes.append(UInt8(ascii: " "))
    }
}
