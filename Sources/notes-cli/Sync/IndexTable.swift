import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local index's note rows as read, before any becomes an `IndexRow`: every text (id, path,
/// name on disk, hash) as bytes in one buffer, the numbers as they are.
///
/// Made so a sync can tell an unchanged folder from the index without a string per column:
/// making `IndexRow`s (an id, a path and a hash string each, the id checked) was two thirds of
/// reading a 10,000-note index, and on a folder where nothing changed no row is ever needed
/// (`isUnchanged(by:caseInsensitive:)`). When something did change, `indexRows()` makes the rows
/// from the buffer, as `SyncIndex.rows()` always does, without reading the database again.
struct IndexTable: Sendable {
    struct Row: Sendable {
        var id: Range<Int>
        var path: Range<Int>
        /// The file's name on disk, `nil` when it is `path` byte for byte (nearly always).
        var diskPath: Range<Int>?
        var hash: Range<Int>
        var rev: Int64
        var stat: FileStat
    }

    private(set) var bytes: [UInt8] = []
    private(set) var rows: [Row] = []

    init() {}

    /// Adds a row: the texts' bytes are copied into the one buffer.
    mutating func append(id: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer, diskPath: UnsafeRawBufferPointer?,
                         hash: UnsafeRawBufferPointer, rev: Int64, stat: FileStat) {
        let id = keep(id), path = keep(path), diskPath = diskPath.map { keep($0) }, hash = keep(hash)
        rows.append(Row(id: id, path: path, diskPath: diskPath, hash: hash, rev: rev, stat: stat))
    }

    private mutating func keep(_ text: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: text)
        return start ..< bytes.count
    }

    /// Every row as an `IndexRow`; a row whose id is not a UUID is left out (as it always was:
    /// its file is then a new note).
    func indexRows() -> [IndexRow] {
        bytes.withUnsafeBufferPointer { buffer in
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
            }
            var made: [IndexRow] = []
            made.reserveCapacity(rows.count)
            for row in rows {
                guard let id = NoteID(string(row.id)) else { continue }
                let path = string(row.path)
                // A file's name on disk is nearly always its path: the row shares the path's string.
                made.append(IndexRow(base: SyncBase(id: id, path: path, rev: row.rev, hash: string(row.hash)),
                                     diskPath: row.diskPath.map(string) ?? path, stat: row.stat))
            }
            return made
        }
    }
}

extension IndexTable {
    /// Whether the walk's `listing` is the index exactly, at a glance: one file per row, each at
    /// the very name its row was synced under with the row's size, modification time and inode,
    /// and every row a note the server confirmed. `LocalScan.scan` then finds every note clean
    /// at its first check, nothing missing, nothing new, nothing to look at closer: this answers
    /// the same without making a string, a row or a table (a test holds the two to agreeing).
    ///
    /// Anything else answers `false`, and the general scan decides, so this may only be stricter
    /// than it: a row whose name on disk differs from its path, whose id is not in its canonical
    /// spelling (the general read rewrites or drops it), a create not yet confirmed (rev 0: it
    /// is pushed), a name not in NFC (two names the disk keeps apart may be one path), a folder
    /// whose filesystem folds case.
    func isUnchanged(by listing: FolderWalker.Listing, caseInsensitive: Bool) -> Bool {
        guard let order = rowsInPathOrder(caseInsensitive: caseInsensitive) else { return false }
        return isUnchanged(by: listing, rowsInPathOrder: order)
    }

    /// The first half of `isUnchanged(by:caseInsensitive:)`, which needs no listing (a sync
    /// runs it while the walk still runs): the positions of the rows in the order of their
    /// paths' bytes, or `nil` when a row (or the folder) rules the fast answer out.
    func rowsInPathOrder(caseInsensitive: Bool) -> [Int]? {
        guard !caseInsensitive else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> [Int]? in
            guard let base = buffer.baseAddress else { return rows.isEmpty ? [] : nil }  // no bytes: no rows (each has an id)
            for row in rows {
                guard row.rev > 0, row.diskPath == nil, NoteID.isCanonical(utf8: UnsafeBufferPointer(rebasing: buffer[row.id])) else { return nil }
            }
            // To be met one for one with the walk's entries. The index holds rows in the order
            // they were added, which is mostly the walk's, so this sort (Swift's, a merge of
            // runs) costs little.
            var order = Array(rows.indices)
            order.sort { Self.precedes(rows[$0].path, rows[$1].path, base) }
            return order
        }
    }

    /// The second half of `isUnchanged(by:caseInsensitive:)`: `order` is what
    /// `rowsInPathOrder` gave.
    func isUnchanged(by listing: FolderWalker.Listing, rowsInPathOrder order: [Int]) -> Bool {
        guard listing.entries.count == rows.count, order.count == rows.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer -> Bool in
            for (entry, position) in zip(listing.entries, order) {
                let row = rows[position]
                // As `LocalScan.scan` makes it.
                let stat = FileStat(size: entry.size, mtimeNanoseconds: entry.modifiedSeconds * 1_000_000_000 + entry.modifiedNanoseconds,
                                    inode: entry.inode)
                guard stat == row.stat else { return false }
                let path = UnsafeBufferPointer(rebasing: buffer[row.path])
                var entryPath = entry.path
                let same = entryPath.withUTF8 { name in
                    name.count == path.count && (name.isEmpty || memcmp(name.baseAddress!, path.baseAddress!, name.count) == 0)
                }
                guard same else { return false }
                // Every entry is a distinct name on disk; a name in NFC is also a distinct path
                // (and key), as the general scan needs it to be to find each row at its own file.
                if !UTF8Validation.isASCII(path) {
                    var nfc = NotePath.nfc(entryPath)
                    guard nfc.withUTF8({ $0.elementsEqual(path) }) else { return false }
                }
            }
            // Each entry equals its row, and the rows are sorted: the entries are the rows' files,
            // one each, none left over (the counts are equal).
            return true
        }
    }

    private static func precedes(_ a: Range<Int>, _ b: Range<Int>, _ base: UnsafePointer<UInt8>) -> Bool {
        let order = memcmp(base + a.lowerBound, base + b.lowerBound, min(a.count, b.count))
        return order != 0 ? order < 0 : a.count < b.count
    }
}
