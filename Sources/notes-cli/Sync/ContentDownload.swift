import Foundation
import NotesCore

/// One content downloaded into a staged file, range by range, each range's answer written and
/// hashed as it arrives (never held whole), each starting where the staged bytes end.
///
/// The staged file is the content's partial download (`StagedFile(resuming:)`), so a sync
/// killed midway, or a connection lost, costs only the bytes not yet staged: the next attempt
/// asks for the rest. Nothing is placed until every byte is there and the whole hashes to the
/// content's hash (the caller installs it), so no partial or unverified file ever reaches the
/// folder.
///
/// Why ranges rather than one answer for the whole: URLSession on Linux cannot pause a socket
/// for a slow receiver (`ResponseBodySink`), so the length of one answer is what bounds the
/// client's memory. At 16 MiB a range costs one round trip per 16 MiB, nothing measurable.
struct ContentDownload {
    /// The most one answer brings, so the most the transport can have queued for the disk.
    static let rangeBytes: Int64 = 16 << 20
    /// Attempts in a row that may bring nothing before the download gives up.
    static let attemptsWithoutProgress = 3

    let remote: any SyncRemote
    let hash: String
    let total: Int64
    /// The path it goes to, for messages.
    let path: String

    /// Fills `staged` with the content, going on from what it holds.
    /// - Throws: `ClientError.contentMismatch` when the bytes do not hash to `hash` (the caller
    ///   discards them); the sink's reason when the server answered the wrong bytes or the disk
    ///   failed; the network's error when attempts stopped bringing bytes.
    func fill(_ staged: StagedFile) async throws {
        var fruitless = 0
        while staged.size < total {
            let start = staged.size
            let length = min(Self.rangeBytes, total - start)
            let sink = ContentDownloadSink(staged, start: start, end: start + length, total: total,
                                           what: "content \(hash) for \(path)")
            do {
                try await remote.content(hash: hash, offset: start, length: length, total: total, into: sink)
                if let failure = sink.failure { throw failure }
                guard staged.size == start + length else {
                    throw ClientError.protocolViolation("the server answered \(length) bytes at \(start) of \(path) "
                                                        + "(content \(hash)) with \(staged.size - start)")
                }
            } catch {
                if let failure = sink.failure { throw failure }
                // Cut off midway (a dropped connection, a server restarting): go on from what
                // arrived, for as long as attempts bring something.
                fruitless = staged.size > start ? 0 : fruitless + 1
                guard Self.isInterruption(error), fruitless < Self.attemptsWithoutProgress else { throw error }
            }
        }
        guard staged.finalHash() == hash else { throw ClientError.contentMismatch(path: path) }
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

/// Takes the body of a content range into a staged file: checks the answer is the range asked
/// for (`Content-Range`) and never takes a byte past it.
///
/// Unchecked `Sendable`: the transport calls `begin` and `write` one at a time, under its
/// transfer's lock and only until it hands the outcome to the caller, who reads `failure` and
/// touches the staged file only after that; the two never overlap.
final class ContentDownloadSink: ResponseBodySink, @unchecked Sendable {
    private let staged: StagedFile
    private let start: Int64
    private let end: Int64
    private let total: Int64
    private let what: String
    /// Why the sink stopped taking bytes, if it did.
    private(set) var failure: (any Error)?

    /// Takes bytes `start..<end` of a content of `total` bytes.
    init(_ staged: StagedFile, start: Int64, end: Int64, total: Int64, what: String) {
        self.staged = staged
        self.start = start
        self.end = end
        self.total = total
        self.what = what
    }

    func begin(status: Int, headers: [String: String]) -> Bool {
        // The whole content (200, asked for from the start), or a range that starts exactly at
        // the staged bytes' end, of a content of the expected size: anything else would be
        // appended in the wrong place.
        let range = headers["content-range"].flatMap(Self.contentRange)
        let fits = if status == 200 {
            start == 0
        } else {
            status == 206 && range?.first == start && range?.total == total
        }
        guard fits else {
            failure = ClientError.protocolViolation("the server answered \(what) at byte \(start) with HTTP \(status) "
                                                    + "and range \(headers["content-range"] ?? "none")")
            return false
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        guard staged.size + Int64(bytes.count) <= end else {
            failure = ClientError.protocolViolation("the server sent more than the \(end - start) bytes asked for at \(start) of \(what)")
            return false
        }
        do {
            try staged.append(bytes)
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
