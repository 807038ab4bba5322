import NotesCore

/// Reads and hashes, on two threads of their own, the new note files the scan is about to read,
/// a window ahead of it, so the second core works during the scan.
///
/// On the first upload of a folder the scan read, checked and hashed every file one after the
/// other on one thread while the other core idled and nothing was sent yet (10,000 notes of
/// ~2 KB: about a quarter of the sync's wall time went by before the first batch left).
///
/// - Same outcome as the scan's own read: each file is read by `SafeFiles.read` (an instance
///   per thread: a folder's kept descriptor is never shared between threads), after
///   `ScannedTexts.startingNow` (so which texts are kept, and the push's check of them, are as
///   before); its result (or its error) is what `LocalScan.readHash` then takes in, in order.
/// - Only files the scan is sure to read: new notes (no index row at their name), not
///   ignored, named as a new note may be, within the server's note limit.
/// - Bounded: at most two windows of at most `windowFiles` files and `windowBytes` bytes (by the
///   walk's sizes; a file larger than that is a window alone) are held or in flight at once.
final class NoteReadAhead {
    /// A file read ahead: its text (`nil` when it is not UTF-8, then not hashed), hash, metadata.
    struct Read: Sendable {
        var text: String?
        var hash: String
        var stat: FileStat
    }
    typealias Outcome = Result<Read, any Error>

    static let windowFiles = 512
    /// Below this many new files a scan reads them itself: looking for them costs a pass over
    /// every entry of the walk (a path normalised and looked up each), more than reading a few.
    static let minimumNewFiles = 64
    static let windowBytes: Int64 = 2 << 20

    private let files: (SafeFiles, SafeFiles)
    /// The files to read, in the order the scan reaches them.
    private let paths: [String]
    /// For each of the walk's entries, its place in `paths`, or -1.
    private let place: [Int32]
    /// Where each window starts in `paths` (and, last, `paths.count`).
    private let windowStarts: [Int]
    /// The window being taken in and its outcomes, and the one after it, in flight.
    private var current: (window: Int, outcomes: [Outcome])?
    private var next: (window: Int, halves: (ThreadWork<[Outcome]>, ThreadWork<[Outcome]>))?

    /// - Parameters:
    ///   - candidates: for each entry the scan will read, its index in the walk's listing, its
    ///     path on disk and its size, in the listing's order.
    init(root: String, scratch: String, entryCount: Int, candidates: [(entry: Int, path: String, size: Int64)]) {
        files = (SafeFiles(root: root, scratch: scratch), SafeFiles(root: root, scratch: scratch))
        paths = candidates.map(\.path)
        var place = [Int32](repeating: -1, count: entryCount)
        var starts: [Int] = []
        var bytes: Int64 = 0
        for (position, candidate) in candidates.enumerated() {
            place[candidate.entry] = Int32(position)
            if let start = starts.last, position - start < Self.windowFiles, bytes + candidate.size <= Self.windowBytes {
                bytes += candidate.size
            } else {
                starts.append(position)
                bytes = candidate.size
            }
        }
        starts.append(candidates.count)
        self.place = place
        windowStarts = starts
        if !candidates.isEmpty { next = (0, start(0)) }
    }

    /// Whether the walk's entry `entry` is read ahead (one the scan is sure to read).
    func isCandidate(_ entry: Int) -> Bool {
        entry < place.count && place[entry] >= 0
    }

    /// What reading the walk's entry `entry` gave, or `nil` when it was not read ahead (the
    /// scan reads it itself). Each entry's outcome is given once, in the listing's order.
    func take(entry: Int) async -> Outcome? {
        guard entry < place.count, place[entry] >= 0 else { return nil }
        let position = Int(place[entry])
        let window = windowIndex(of: position)
        if current?.window != window {
            current = nil
            // A window's threads use the two `SafeFiles` (whose kept descriptors are not to be
            // shared between threads at once): the next window starts only once this one is in.
            let halves: (ThreadWork<[Outcome]>, ThreadWork<[Outcome]>)
            let pending = next.take()
            if let pending, pending.window == window {
                halves = pending.halves
            } else {
                if let pending {
                    _ = try? await pending.halves.0.value
                    _ = try? await pending.halves.1.value
                }
                halves = start(window)
            }
            let first = (try? await halves.0.value) ?? []
            let second = (try? await halves.1.value) ?? []
            current = (window, first + second)
            if window + 2 < windowStarts.count { next = (window + 1, start(window + 1)) }
        }
        guard let current else { return nil }
        let offset = position - windowStarts[window]
        return offset < current.outcomes.count ? current.outcomes[offset] : nil
    }

    /// The window holding `position` (windows are few: a linear look from the current one).
    private func windowIndex(of position: Int) -> Int {
        var window = current?.window ?? 0
        if windowStarts[window] > position { window = 0 }
        while windowStarts[window + 1] <= position { window += 1 }
        return window
    }

    /// Starts reading window `window`, its two halves on two threads.
    private func start(_ window: Int) -> (ThreadWork<[Outcome]>, ThreadWork<[Outcome]>) {
        let lower = windowStarts[window], upper = windowStarts[window + 1]
        let middle = lower + (upper - lower + 1) / 2
        let firstPaths = Array(paths[lower..<middle]), secondPaths = Array(paths[middle..<upper])
        let files = self.files
        return (ThreadWork { Self.read(firstPaths, with: files.0) }, ThreadWork { Self.read(secondPaths, with: files.1) })
    }

    private static func read(_ paths: [String], with files: SafeFiles) -> [Outcome] {
        paths.map { path in Result { try read(path, with: files) } }
    }

    /// Reads the note file at `path` with `files`, checks it is UTF-8 text and hashes it: the
    /// one read of a note by the scan, ahead or not.
    static func read(_ path: String, with files: SafeFiles) throws -> Read {
        let read = try files.read(path)
        guard let text = String(validating: read.bytes, as: UTF8.self) else {
            return Read(text: nil, hash: "", stat: read.stat)
        }
        return Read(text: text, hash: SHA256.hex(of: read.bytes), stat: read.stat)
    }
}
