import CCurl
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request in flight: its easy handle, the answer as it arrives, and the one continuation
/// that gets the outcome (exactly once, whoever finishes first: libcurl, a timeout, a bound or
/// the caller's cancellation).
///
/// `@unchecked Sendable` because its answer state (status, headers, body, counters, last
/// activity) is touched only on the multi handle's thread, by libcurl's callbacks and the
/// timeout sweep, while the transfer is on that handle; what other threads touch (the outcome)
/// is under `shared`'s lock.
final class CurlTransfer: @unchecked Sendable {
    typealias Outcome = Result<CurlResponse, CurlFailure>

    private struct Shared {
        /// Hands the outcome to the caller: resumes an awaiting task, or wakes a waiting thread.
        var continuation: (@Sendable (Outcome) -> Void)?
        var failure: CurlFailure?
        /// Whether the caller has (or is being handed) the outcome: no sink call after that.
        var finished = false
    }

    let easy: CurlEasy
    private let request: CurlRequest
    private let shared = Mutex(Shared())

    // The multi thread's own state.
    private var status = 0
    private var headers: [String: String] = [:]
    private var headerBytes = 0
    private var body = Data()
    private var received = 0
    private var sent: Int64 = 0
    /// Whether the body goes to the sink (a 2xx answer the sink took).
    private var streaming = false
    private(set) var lastActivity = ContinuousClock.now
    private let deadline: ContinuousClock.Instant

    /// The most header bytes one answer may bring (libcurl bounds each line, not their number).
    static let maxHeaderBytes = 256 * 1024

    init(request: CurlRequest, easy: CurlEasy) {
        self.request = request
        self.easy = easy
        deadline = .now + request.deadline
    }

    var idleTimeout: Duration { request.idleTimeout }

    /// Takes the caller's continuation; false when the transfer already failed (cancelled
    /// before it began), in which case the continuation has its answer and nothing is sent.
    func start(_ continuation: CheckedContinuation<Outcome, Never>) -> Bool {
        start { continuation.resume(returning: $0) }
    }

    /// Takes what hands the caller the outcome (called once, on whichever thread finishes the
    /// transfer); false when the transfer already failed, in which case `continuation` has run.
    func start(_ continuation: @escaping @Sendable (Outcome) -> Void) -> Bool {
        let failure = shared.withLock { shared -> CurlFailure? in
            guard !shared.finished, shared.failure == nil else {
                shared.finished = true
                return shared.failure ?? CurlFailure(kind: .cancelled)
            }
            shared.continuation = continuation
            return nil
        }
        guard let failure else { return true }
        continuation(.failure(failure))
        return false
    }

    /// Whether the caller already has the outcome.
    var isFinished: Bool { shared.withLock { $0.finished } }

    /// Stops the transfer for `failure` (the first reason wins) and hands that to the caller at
    /// once; the multi thread drops the handle when it gets to it.
    func fail(_ failure: CurlFailure) {
        let handOver = shared.withLock { shared -> (@Sendable (Outcome) -> Void, CurlFailure)? in
            if shared.failure == nil { shared.failure = failure }
            guard let continuation = shared.continuation, let failure = shared.failure else { return nil }
            shared.continuation = nil
            shared.finished = true
            return (continuation, failure)
        }
        if let (continuation, failure) = handOver { continuation(.failure(failure)) }
    }

    /// Records `failure` (the first wins) and returns false, for a callback that stops the transfer.
    private func stop(_ failure: CurlFailure) -> Bool {
        shared.withLock { if $0.failure == nil { $0.failure = failure } }
        return false
    }

    /// Hands the outcome to the caller once libcurl has finished with `code` (multi thread).
    func complete(_ code: CURLcode) {
        let handOver = shared.withLock { shared -> (@Sendable (Outcome) -> Void, Outcome)? in
            guard let continuation = shared.continuation else { return nil }
            shared.continuation = nil
            shared.finished = true
            if let failure = shared.failure { return (continuation, .failure(failure)) }
            if let failure = CurlOutcome.failure(code) { return (continuation, .failure(failure)) }
            return (continuation, .success(CurlResponse(status: status, headers: headers, body: body)))
        }
        body = Data()
        if let (continuation, outcome) = handOver { continuation(outcome) }
    }

    /// Why the transfer is overdue at `now`, if it is (multi thread).
    func overdue(at now: ContinuousClock.Instant) -> CurlFailure? {
        if now >= deadline { return CurlFailure(kind: .deadlineExceeded) }
        if now - lastActivity >= request.idleTimeout { return CurlFailure(kind: .timedOut) }
        return nil
    }

    // MARK: libcurl's callbacks (multi thread)

    /// One header line of the answer, status line and closing empty line included.
    func headerLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else { return stop(CurlFailure(kind: .tooLarge)) }
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last.isNewline { line = line.dropLast() }
        if line.hasPrefix("HTTP/") {
            // A new answer: the first, or the one after an interim 1xx.
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
            return true
        }
        if line.isEmpty { return headersEnded() }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if let earlier = headers[name] { headers[name] = earlier + ", " + value } else { headers[name] = value }
        return true
    }

    /// The redirects libcurl would follow if asked to; none is.
    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    private func headersEnded() -> Bool {
        if (100..<200).contains(status) { return true }
        if Self.redirectStatuses.contains(status), let location = headers["location"] {
            return stop(CurlFailure(kind: .redirected, detail: location))
        }
        // A HEAD answer's length is the resource's; no body follows it.
        let announced = request.method == "HEAD" ? nil : headers["content-length"].flatMap { Int($0) }
        if let announced, announced > request.maxResponseBytes { return stop(CurlFailure(kind: .tooLarge)) }
        if let sink = request.sink, (200..<300).contains(status) {
            let began = shared.withLock { $0.finished ? false : sink.begin(status: status, headers: headers) }
            guard began else { return stop(CurlFailure(kind: .refusedBySink)) }
            streaming = true
        } else if let announced {
            guard announced <= bufferedLimit else { return stop(CurlFailure(kind: .tooLarge)) }
            body.reserveCapacity(announced)
        }
        return true
    }

    /// The most body bytes held in memory.
    private var bufferedLimit: Int { min(request.maxResponseBytes, request.maxBufferedBytes ?? .max) }

    /// The next bytes of the answer body.
    func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        guard received + bytes.count <= (streaming ? request.maxResponseBytes : bufferedLimit) else {
            body = Data()
            return stop(CurlFailure(kind: .tooLarge))
        }
        received += bytes.count
        guard streaming, let sink = request.sink else {
            body.append(contentsOf: bytes)
            return true
        }
        // Under the lock, so nothing reaches the sink once the caller has the outcome.
        let written = shared.withLock { $0.finished || $0.failure != nil ? false : sink.write(bytes) }
        return written ? true : stop(CurlFailure(kind: .refusedBySink))
    }

    /// Fills `buffer` with the next bytes of the request body; nil stops the transfer.
    func requestBytes(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        lastActivity = .now
        guard let source = request.body else { return 0 }
        let wanted = Int(min(Int64(buffer.count), source.count - sent))
        guard wanted > 0 else { return 0 }
        switch source {
        case .bytes(let data):
            data.withUnsafeBytes { all in
                let start = all.index(all.startIndex, offsetBy: Int(sent))
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[start..<(start + wanted)]))
            }
        case .file(let descriptor, let offset, _):
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(offset + sent))
            guard count > 0 else {
                let reason = count == 0 ? "the file ended early" : String(cString: strerror(errno))
                _ = stop(CurlFailure(kind: .other, detail: "reading the request body: \(reason)"))
                return nil
            }
            sent += Int64(count)
            return count
        }
        sent += Int64(wanted)
        return wanted
    }

    /// Rewinds the request body to `offset`, for libcurl to send it again on a new connection.
    func rewind(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= request.body?.count ?? 0 else { return false }
        sent = offset
        return true
    }
}
