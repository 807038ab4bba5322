import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations the sync engine makes in a folder: `SafeFiles` on disk, or
/// `DryRunFiles` for `notes status`, which must take exactly the same decisions.
protocol FolderFiles {
    func occupant(_ relative: String) throws -> SafeFiles.Occupant
    func read(_ relative: String) throws -> (bytes: [UInt8], stat: FileStat)
    func write(_ bytes: [UInt8], to relative: String, expecting expected: SafeFiles.Expectation) throws -> FileStat?
    /// The SHA-256 of a file of any size, read through a fixed buffer, with its metadata.
    func hash(_ relative: String) throws -> (hash: String, stat: FileStat)
    /// Puts a complete, verified download in place (see `SafeFiles.install`).
    func install(_ staged: StagedFile, at relative: String, expecting expected: SafeFiles.Expectation, durable: Bool) throws -> FileStat?
    func move(_ from: String, to: String, expecting expected: FileStat) throws -> FileStat?
    func remove(_ relative: String, expecting expected: FileStat) throws -> Bool
    func flush()
}

extension SafeFiles: FolderFiles {}

/// The folder as a sync would leave it, without touching it: writes, moves and removals are
/// kept in memory over the real folder, and reads and checks see them, so a dry run meets the
/// same obstacles (a name taken by a conflict copy it made, a file it moved away) as the sync.
///
/// Paths are checked on disk first, so a link on the way is refused here as the sync refuses it.
/// Written bytes are held until the run ends: a dry run costs the memory of what it downloads.
final class DryRunFiles: FolderFiles {
    private enum Entry {
        case absent
        case file(content: Content, stat: FileStat)
    }

    private enum Content {
        /// The real file that was at this path (moved here).
        case disk(String)
        case bytes([UInt8])
    }

    private let real: SafeFiles
    private var entries: [String: Entry] = [:]
    /// Written files get metadata no real file has (a negative time), unique per write.
    private var writes: Int64 = 0

    init(real: SafeFiles) {
        self.real = real
    }

    func occupant(_ relative: String) throws -> SafeFiles.Occupant {
        switch entries[relative] {
        case .absent: return .none
        case .file(_, let stat): return .file(stat)
        case nil: return try real.occupant(relative)
        }
    }

    func read(_ relative: String) throws -> (bytes: [UInt8], stat: FileStat) {
        switch entries[relative] {
        case .absent: throw SyncFileError(relative, "read", ENOENT)
        case .file(.bytes(let bytes), let stat): return (bytes, stat)
        case .file(.disk(let source), let stat): return (try real.read(source).bytes, stat)
        case nil: return try real.read(relative)
        }
    }

    func write(_ bytes: [UInt8], to relative: String, expecting expected: SafeFiles.Expectation) throws -> FileStat? {
        _ = try real.occupant(relative)  // a link on the way throws, as it does for a write
        switch (try occupant(relative), expected) {
        case (.none, .absent): break
        case (.file(let now), .file(let then)) where now == then: break
        default: return nil
        }
        writes += 1
        let stat = FileStat(size: Int64(bytes.count), mtimeNanoseconds: -1 - writes, inode: 0)
        entries[relative] = .file(content: .bytes(bytes), stat: stat)
        return stat
    }

    func hash(_ relative: String) throws -> (hash: String, stat: FileStat) {
        switch entries[relative] {
        case .absent: throw SyncFileError(relative, "read", ENOENT)
        case .file(.bytes(let bytes), let stat): return (SHA256.hex(of: bytes), stat)
        case .file(.disk(let source), let stat): return (try real.hash(source).hash, stat)
        case nil: return try real.hash(relative)
        }
    }

    /// A dry run downloads nothing (the engine never stages a file for it); the placement is
    /// recorded as a write would be.
    func install(_ staged: StagedFile, at relative: String, expecting expected: SafeFiles.Expectation, durable: Bool) throws -> FileStat? {
        staged.discard()
        return try write([], to: relative, expecting: expected)
    }

    func move(_ from: String, to: String, expecting expected: FileStat) throws -> FileStat? {
        _ = try real.occupant(to)
        guard try occupant(from) == .file(expected), try occupant(to) == .none else { return nil }
        let content: Content = if case .file(let content, _) = entries[from] { content } else { .disk(from) }
        entries[to] = .file(content: content, stat: expected)  // a rename keeps size, time and inode
        entries[from] = .absent
        return expected
    }

    func remove(_ relative: String, expecting expected: FileStat) throws -> Bool {
        switch try occupant(relative) {
        case .none:
            return true
        case .file(let now) where now == expected:
            entries[relative] = .absent
            return true
        default:
            return false
        }
    }

    func flush() {}
}
