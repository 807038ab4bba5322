import Foundation
import NotesCore
import Synchronization

/// One content downloaded into a staged file in ranges, two in flight at once, each answer
/// taken as it arrives (never held whole).
///
/// The staged file only ever holds the content's first bytes, in order, hashed as they are
/// written (`RangeAssembly`): a range that arrives ahead of the one before it waits in memory
/// until that one is written. So the staged file is always a good partial download
/// (`StagedFile(resuming:)`), and a sync killed midway, or a connection lost, costs only the
/// bytes not yet staged: the next attempt asks for the rest. Nothing is placed until every byte
/// is there and the whole hashes to the content's hash (the caller installs it), so no partial
/// or unverified file ever reaches the folder.
///
/// Why ranges rather than one answer for the whole: a range is what one attempt risks, so a lost
/// connection costs at most a range, and a range that arrives early is held in memory until its
/// turn. Why two at once: while one range waits for its first bytes, the other's arrive.
/// Memory: the transport's buffers (the sink writes as bytes arrive, and the socket waits for
/// it) and at most one range waiting.
struct ContentDownload {
    /// The most one answer brings, so the most one range held early can take in memory.
    static let rangeBytes: Int64 = 16 << 20
    /// Ranges asked for at once, counting one that arrived early and waits for its turn.
    static let rangesInFlight = 2
    /// Attempts in a row that may bring nothing before a range gives up.
    static let attemptsWithoutProgress = 3

    let remote: any SyncRemote
    let hash: String
    let total: Int64
    /// The path it goes to, for messages.
    let path: String

    /// Fills `staged` with the content, going on from what it holds.
    /// - Throws: `ClientError.contentMismatch` when the bytes do not hash to `hash` (the caller
    ///   discards them); the sink's reason when the server answered the wrong bytes or the disk
    ///   failed; the network's error when attempts stopped bringing bytes (the staged file then
    ///   holds every byte that arrived in order, for the next attempt).
    func fill(_ staged: StagedFile) async throws {
        let assembly = RangeAssembly(staged, what: "content \(hash) for \(path)")
        var next = staged.size
        try await withThrowingTaskGroup(of: Void.self) { group in
            do {
                while true {
                    while next < total, assembly.openRanges < Self.rangesInFlight {
                        let range = next..<min(next + Self.rangeBytes, total)
                        assembly.open(range)
                        next = range.upperBound
                        group.addTask { try await fetch(range, into: assembly) }
                    }
                    guard try await group.next() != nil else { break }
                }
            } catch {
                group.cancelAll()
                throw error
            }
        }
        guard staged.size == total else {
            throw ClientError.protocolViolation("the server's answers for \(path) (content \(hash)) ended at byte \(staged.size) of \(total)")
        }
        guard staged.finalHash() == hash else { throw ClientError.contentMismatch(path: path) }
    }

    /// Fetches `range` into `assembly`, asking again from where an interrupted answer stopped.
    private func fetch(_ range: Range<Int64>, into assembly: RangeAssembly) async throws {
        var fruitless = 0
        while true {
            let from = assembly.received(range)
            guard from < range.upperBound else { return }
            let sink = ContentDownloadSink(assembly, range: range, first: from, total: total)
            do {
                try await remote.content(hash: hash, offset: from, length: range.upperBound - from, total: total, into: sink)
                if let failure = sink.failure { throw failure }
                let reached = assembly.received(range)
                guard reached == range.upperBound else {
                    throw ClientError.protocolViolation("the server answered \(range.upperBound - from) bytes at \(from) of \(path) "
                                                        + "(content \(hash)) with \(reached - from)")
                }
            } catch {
                if let failure = sink.failure { throw failure }
                // Cut off midway (a dropped connection, a server restarting): go on from what
                // arrived, for as long as attempts bring something.
                fruitless = assembly.received(range) > from ? 0 : fruitless + 1
                guard Self.isInterruption(error), fruitless < Self.attemptsWithoutProgress else { throw error }
            }
        }
    }

    /// Whether `error` is a transfer cut off midway, worth resuming.
    static func isInterruption(_ error: any Error) -> Bool {
        guard let error = error as? ClientError else { return false }
        switch error {
        case .unreachable, .transportFailed: return true
        default: return false
        }
    }
}

/// The ranges of one download in flight, put together in order into the staged file.
///
/// The first open range (the one that starts where the staged bytes end) is written and
/// hashed as its bytes arrive; a later one keeps its bytes in memory (at most one range) until
/// every range before it is written, then goes to the file and, from then on, writes as it
/// arrives. So the staged file never holds a gap, and the hash is one pass in order.
///
/// Unchecked `Sendable`: every use of `staged` and of the ranges' state is under `lock` (the
/// ranges' answers arrive on two sessions' delegate queues at once).
final class RangeAssembly: @unchecked Sendable {
    private struct OpenRange {
        let range: Range<Int64>
        /// Bytes written to the file.
        var written: Int64 = 0
        /// Bytes that arrived before their turn.
        var waiting: [UInt8] = []

        var received: Int64 { written + Int64(waiting.count) }
    }

    private let staged: StagedFile
    /// For messages.
    let what: String
    private let lock = NSLock()
    /// Open ranges, in order; the first one starts where the staged bytes end.
    private var ranges: [OpenRange] = []
    /// The memory of the last range that waited, kept for the next one: a new 16 MiB buffer
    /// per range is fresh pages each time, which this kind of virtual machine charges seconds
    /// of kernel time per gigabyte for.
    private var spare: [UInt8] = []

    init(_ staged: StagedFile, what: String) {
        self.staged = staged
        self.what = what
    }

    /// Ranges opened and not yet wholly written.
    var openRanges: Int { lock.withLock { ranges.count } }

    /// Opens `range`, which starts where the last open range ends (or the staged bytes, when
    /// none is open).
    func open(_ range: Range<Int64>) {
        lock.withLock { ranges.append(OpenRange(range: range)) }
    }

    /// Where the bytes received for `range` end (its end once wholly written).
    func received(_ range: Range<Int64>) -> Int64 {
        lock.withLock {
            ranges.first { $0.range == range }.map { range.lowerBound + $0.received } ?? range.upperBound
        }
    }

    /// Takes the next bytes of `range`: written when every range before it is, kept until then
    /// otherwise.
    /// - Returns: false when they would go past the range's end (nothing is taken).
    /// - Throws: the disk's error.
    func take(_ bytes: UnsafeRawBufferPointer, of range: Range<Int64>) throws -> Bool {
        try lock.withLock {
            guard let index = ranges.firstIndex(where: { $0.range == range }) else { return false }
            guard ranges[index].received + Int64(bytes.count) <= Int64(range.count) else { return false }
            if index == 0 {
                try staged.append(bytes)
                ranges[0].written += Int64(bytes.count)
                try closeWrittenRanges()
            } else {
                if ranges[index].waiting.capacity == 0 {
                    swap(&ranges[index].waiting, &spare)
                    ranges[index].waiting.reserveCapacity(range.count)
                }
                ranges[index].waiting.append(contentsOf: bytes)
            }
            return true
        }
    }

    /// Drops each leading range that is wholly written and writes what the next one kept.
    private func closeWrittenRanges() throws {
        while let first = ranges.first, first.written == Int64(first.range.count) {
            ranges.removeFirst()
            guard !ranges.isEmpty, !ranges[0].waiting.isEmpty else { continue }
            var waiting: [UInt8] = []
            swap(&waiting, &ranges[0].waiting)
            try waiting.withUnsafeBytes { try staged.append($0) }
            ranges[0].written += Int64(waiting.count)
            waiting.removeAll(keepingCapacity: true)
            spare = waiting
        }
    }
}

/// Takes the body of one answer for a range of a content: checks the answer starts where it
/// was asked to (`Content-Range`) and hands its bytes to the assembly, never one past the range.
///
/// Unchecked `Sendable`: the transport calls `begin` and `write` one at a time, under its
/// transfer's lock and only until it hands the outcome to the caller, who reads `failure` only
/// after that; the two never overlap.
final class ContentDownloadSink: ResponseBodySink, @unchecked Sendable {
    private let assembly: RangeAssembly
    private let range: Range<Int64>
    private let first: Int64
    private let total: Int64
    /// Why the sink stopped taking bytes, if it did.
    private(set) var failure: (any Error)?

    /// Takes the bytes of `range` from `first` on, of a content of `total` bytes.
    init(_ assembly: RangeAssembly, range: Range<Int64>, first: Int64, total: Int64) {
        self.assembly = assembly
        self.range = range
        self.first = first
        self.total = total
    }

    func begin(status: Int, headers: [String: String]) -> Bool {
        // The whole content (200, asked for from the start), or a range that starts exactly
        // where this one's received bytes end, of a content of the expected size: anything
        // else would be put in the wrong place.
        let answered = headers["content-range"].flatMap(Self.contentRange)
        let fits = if status == 200 {
            first == 0
        } else {
            status == 206 && answered?.first == first && answered?.total == total
        }
        guard fits else {
            failure = ClientError.protocolViolation("the server answered \(assembly.what) at byte \(first) with HTTP \(status) "
                                                    + "and range \(headers["content-range"] ?? "none")")
            return false
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        do {
            guard try assembly.take(bytes, of: range) else {
                failure = ClientError.protocolViolation("the server sent more than the \(range.upperBound - first) bytes asked for at "
                                                        + "\(first) of \(assembly.what)")
                return false
            }
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// `bytes FIRST-LAST/TOTAL` (RFC 9110 §14.4).
    static func contentRange(_ text: String) -> (first: Int64, last: Int64, total: Int64)? {
        guard text.hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last, last < total else { return nil }
        return (first, last, total)
    }
}
