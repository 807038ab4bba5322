import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The texts of the notes the scan read and hashed, kept for the push, so it does not read and
/// hash each new or changed note a second time (on an upload of 10,000 notes of ~2 KB that
/// second read was about a tenth of the client's CPU).
///
/// - Bounded: at most `capacity` bytes of text (and a fixed overhead a text) are kept; past it
///   the push reads the file again, as it does for any note not kept, so memory stays within
///   the client's memory target (docs/architecture.md, Performance targets) however large the folder.
/// - Used only while the file is as it was read: the push compares the file's metadata now (one
///   `lstat`) with the metadata the read saw, and reads it again when they differ, so a file
///   saved between the scan and the push is sent as it is then.
/// - Never kept for a file modified shortly before the scan started (`racyMargin`): a second
///   save within one tick of a coarse clock (2 s on FAT), keeping size and inode, would not move
///   the metadata; the push's own read sends such a file as it is when sent.
struct ScannedTexts: Sendable {
    struct Text: Sendable {
        var text: String
        var hash: String
        var stat: FileStat
    }

    /// 32 MiB: every note of a 10,000-note folder of ~2 KB notes.
    static let defaultCapacity = 32 << 20

    /// What a folder of `files` files leaves for kept texts: the rest of the client's memory
    /// (docs/architecture.md, Performance targets: 200 MiB at 100,000 notes) goes to per-note state that grows with the folder
    /// (measured: an upload peaked at 52 MB resident for 10,000 new notes of ~2 KB and 177 MB
    /// for 100,000 without kept texts; at 100,000 with 32 MiB kept, 218 MB, and with 11 MiB
    /// kept, 200 MB: a kept text costs about twice its bytes in resident memory).
    /// 40 MiB less 384 bytes a file, at most `defaultCapacity`: 32 MiB up to about 21,000 files,
    /// about 3.5 MiB at 100,000, none from 109,000.
    static func capacity(forFiles files: Int) -> Int {
        min(defaultCapacity, max(0, (40 << 20) - files * 384))
    }
    /// What a kept text costs beyond its bytes: the table's slot, the path, the hash.
    static let overheadPerText = 192
    /// How long before the scan a file must have been modified last for its text to be kept.
    static let racyMargin: Int64 = 3_000_000_000

    /// Keeps nothing.
    static let none = ScannedTexts(capacity: 0, keepModifiedBefore: .min)

    let capacity: Int
    /// Nanoseconds since 1970: only files last modified before this are kept.
    let keepModifiedBefore: Int64
    private var texts: [String: Text] = [:]
    /// The bytes kept, overhead included.
    private(set) var bytes = 0

    init(capacity: Int, keepModifiedBefore: Int64) {
        self.capacity = capacity
        self.keepModifiedBefore = keepModifiedBefore
    }

    /// Keeps files modified `racyMargin` before now, up to `capacity` bytes.
    static func startingNow(capacity: Int = defaultCapacity) -> ScannedTexts {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        return ScannedTexts(capacity: capacity, keepModifiedBefore: nanoseconds - racyMargin)
    }

    var count: Int { texts.count }

    /// Keeps `text` (hashing to `hash`) read from `diskPath` with metadata `stat`, if there is room
    /// and the file was not modified too recently.
    mutating func keep(_ text: String, hash: String, stat: FileStat, at diskPath: String) {
        guard stat.mtimeNanoseconds < keepModifiedBefore else { return }
        let cost = text.utf8.count + Self.overheadPerText
        guard bytes + cost <= capacity else { return }
        if let old = texts.updateValue(Text(text: text, hash: hash, stat: stat), forKey: diskPath) {
            bytes -= old.text.utf8.count + Self.overheadPerText
        }
        bytes += cost
    }

    /// The text kept for `diskPath`, forgotten here (its memory goes once the batch is sent).
    mutating func take(_ diskPath: String) -> Text? {
        guard let text = texts.removeValue(forKey: diskPath) else { return nil }
        bytes -= text.text.utf8.count + Self.overheadPerText
        return text
    }

    /// Forgets the text kept for `diskPath` (a note found clean after all, or moved).
    mutating func forget(_ diskPath: String) {
        _ = take(diskPath)
    }

    /// Whether the file at the absolute `path` is still the one read with metadata `expected`.
    ///
    /// One `lstat`, not `SafeFiles`'s walk from the root one folder at a time: nothing is read
    /// here, and a link never leads to a match (the link itself is not a regular file, and a file
    /// reached through a linked folder has another inode, or the same one only if it is the very
    /// file the scan read safely). A kept text is sent only on a match, so the worst a link can do
    /// is make the push read the file again through `SafeFiles`, which refuses it.
    static func isUnchanged(_ path: String, since expected: FileStat) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return SafeFiles.fileStat(info) == expected
    }
}
