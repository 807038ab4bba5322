import NotesCore

/// Reads and hashes, on two threads of their own, the new files the scan is about to read, a
/// window ahead of it, so the second core works during the scan.
///
/// On the first upload of a folder the scan read, checked and hashed every file one after the
/// other on one thread while the other core idled and nothing was sent yet (10,000 notes of
/// ~2 KB: about a quarter of the sync's wall time went by before the first batch left; 1,000
/// images of ~200 KB: a quarter too).
///
/// - Same outcome as the scan's own read: a note is read by `SafeFiles.read`, an attachment
///   hashed by `SafeFiles.hash(_:chunkBytes:)` (an instance per thread: a folder's kept
///   descriptor is never shared between threads), after `ScannedTexts.startingNow` (so which
///   texts are kept, and the push's check of them, are as without the read-ahead); its result (or its error)
///   is what `LocalScan.readHash` then takes in, in order.
/// - Only files the scan is sure to read: new files (no index row at their name), not
///   ignored, named as a new entry may be, within the server's limit for their kind.
/// - Bounded: at most two windows of at most `windowFiles` files and `windowBytes` bytes of
///   notes (by the walk's sizes; a note larger than that is a window alone) are held or in
///   flight at once. An attachment holds no bytes, only its hash.
final class NewFileReadAhead {
    /// A file read ahead: a note's text (`nil` when it is not UTF-8, then not hashed; always nil
    /// for an attachment), the hash, the metadata, and an attachment's chunk digests.
    struct Read: Sendable {
        var text: String?
        var hash: String
        var stat: FileStat
        var chunks: ChunkDigests? = nil
    }

    /// A file the scan is sure to read: its index in the walk's listing, its path on disk, its
    /// kind and its size.
    struct Candidate {
        var entry: Int
        var path: String
        var kind: EntryKind
        var size: Int64
    }
    typealias Outcome = Result<Read, any Error>

    static let windowFiles = 512
    /// Below this many new files a scan reads them itself: looking for them costs a pass over
    /// every entry of the walk (a path normalised and looked up each), more than reading a few.
    static let minimumNewFiles = 64
    static let windowBytes: Int64 = 2 << 20

    private let files: (SafeFiles, SafeFiles)
    /// The files to read, in the order the scan reaches them, with their kinds.
    private let paths: [(path: String, kind: EntryKind)]
    /// The server's chunk size: an attachment larger is hashed chunk by chunk too (nil: never).
    private let chunkBytes: Int?
    /// For each of the walk's entries, its place in `paths`, or -1.
    private let place: [Int32]
    /// Where each window starts in `paths` (and, last, `paths.count`).
    private let windowStarts: [Int]
    /// The window being taken in and its outcomes, and the one after it, in flight.
    private var current: (window: Int, outcomes: [Outcome])?
    private var next: (window: Int, halves: (ThreadWork<[Outcome]>, ThreadWork<[Outcome]>))?

    /// - Parameters:
    ///   - candidates: the entries the scan will read, in the listing's order.
    ///   - chunkBytes: the server's upload chunk size (`SafeFiles.hash(_:chunkBytes:)`), or nil
    ///     when nothing will be uploaded (a dry run).
    init(root: String, scratch: String, entryCount: Int, candidates: [Candidate], chunkBytes: Int?) {
        files = (SafeFiles(root: root, scratch: scratch), SafeFiles(root: root, scratch: scratch))
        paths = candidates.map { ($0.path, $0.kind) }
        self.chunkBytes = chunkBytes
        var place = [Int32](repeating: -1, count: entryCount)
        var starts: [Int] = []
        var bytes: Int64 = 0
        for (position, candidate) in candidates.enumerated() {
            place[candidate.entry] = Int32(position)
            let held = candidate.kind == .note ? candidate.size : 0
            if let start = starts.last, position - start < Self.windowFiles, bytes + held <= Self.windowBytes {
                bytes += held
            } else {
                starts.append(position)
                bytes = held
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
        let files = self.files, chunkBytes = self.chunkBytes
        return (ThreadWork { Self.read(firstPaths, chunkBytes: chunkBytes, with: files.0) },
                ThreadWork { Self.read(secondPaths, chunkBytes: chunkBytes, with: files.1) })
    }

    private static func read(_ paths: [(path: String, kind: EntryKind)], chunkBytes: Int?, with files: SafeFiles) -> [Outcome] {
        paths.map { file in
            Result {
                switch file.kind {
                case .note: return try read(file.path, with: files)
                case .attachment: return try hash(file.path, chunkBytes: chunkBytes, with: files)
                }
            }
        }
    }

    /// Hashes the attachment at `path` with `files` (and each chunk, if it goes up in chunks of
    /// `chunkBytes`): the one read of an attachment by the scan, ahead or not.
    static func hash(_ path: String, chunkBytes: Int?, with files: SafeFiles) throws -> Read {
        let hashed = try files.hash(path, chunkBytes: chunkBytes)
        return Read(text: nil, hash: hashed.hash, stat: hashed.stat, chunks: hashed.chunks)
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
