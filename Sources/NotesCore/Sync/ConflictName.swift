/// Names of conflict copies: `NAME.conflict-<device>-<UTC yyyyMMdd-HHmmss>.md` beside the note
/// (with the note's own extension: `NAME.conflict-….markdown` for `NAME.markdown`).
///
/// The time is only part of a name for people to read; no sync decision ever compares it
/// (docs/architecture.md, Sync invariants 5). A conflict copy is an ordinary note and syncs like one.
public enum ConflictName {
    /// The conflict-copy path for `path`, made by `device` at `millisecondsSinceEpoch`.
    /// - Parameter attempt: 1 for the plain name; 2, 3, … add `-2`, `-3` when a name is taken.
    /// - Returns: a valid `NotePath` value (the name is shortened to fit the segment and path
    ///   limits; when the folders alone leave no room, the copy goes to the deepest folder above
    ///   that has some, so a conflict copy can always be synced).
    public static func path(for path: String, device: String, millisecondsSinceEpoch: Int64, attempt: Int = 1) -> String {
        var folder: String, file: String
        if let slash = path.lastIndex(of: "/") {
            folder = String(path[...slash])
            file = String(path[path.index(after: slash)...])
        } else {
            folder = ""
            file = path
        }
        let ext = EntryKind.noteExtension(of: file).map(String.init) ?? NotePath.fileExtension
        let stem = EntryKind.droppingNoteExtension(file)
        let suffix = ".conflict-\(sanitized(device))-\(stamp(millisecondsSinceEpoch))" + (attempt > 1 ? "-\(attempt)" : "") + ext
        // A few bytes of the name at least, so the copy still says which note it is.
        let minimumStem = min(stem.utf8.count, 8)
        while !folder.isEmpty && folder.utf8.count + minimumStem + suffix.utf8.count > NotePath.maxBytes {
            folder = String(folder.dropLast().split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
            if !folder.isEmpty { folder += "/" }
        }
        let room = min(NotePath.maxSegmentBytes, NotePath.maxBytes - folder.utf8.count) - suffix.utf8.count
        return folder + truncated(stem, toBytes: room) + suffix
    }

    /// What a conflict copy's name says: the path of the note it belongs to and the device that
    /// made it; `nil` for a path that is not a conflict copy's name.
    ///
    /// The note's path is read back from the name: exact unless `path(for:)` had to shorten
    /// the name or move the copy up to a shorter folder to fit the limits.
    public static func parse(_ path: String) -> (note: String, device: String)? {
        // Most paths are no conflict copy: a byte search settles them before any String work
        // (the marker is ASCII, which nothing else is canonically equivalent to).
        guard containsMarker(path), let ext = EntryKind.noteExtension(of: path) else { return nil }
        let folderEnd = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let file = path[folderEnd..<ext.startIndex]
        guard let marker = file.range(of: ".conflict-", options: .backwards) else { return nil }
        var parts = file[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        func digits(_ part: Substring?, _ count: Int) -> Bool { part.map { $0.count == count && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) } ?? false }
        if parts.count > 3, let last = parts.last, !digits(last, 6), last.allSatisfy({ $0.isASCII && $0.isNumber }) {
            parts.removeLast()  // the `-2`, `-3` of a name that was taken
        }
        guard parts.count >= 3, digits(parts[parts.count - 1], 6), digits(parts[parts.count - 2], 8) else { return nil }
        let device = parts.dropLast(2).joined(separator: "-")
        let stem = file[..<marker.lowerBound]
        guard !device.isEmpty, !stem.isEmpty else { return nil }
        return (String(path[..<folderEnd]) + stem + ext, device)
    }

    /// Whether the UTF-8 bytes of `path` hold `.conflict-` (by hand: the standard library's
    /// `utf8.firstRange(of:)` measured over a hundred times slower, unspecialised).
    private static func containsMarker(_ path: String) -> Bool {
        let marker: StaticString = ".conflict-"
        let count = marker.utf8CodeUnitCount
        return marker.withUTF8Buffer { marker in
            var path = path
            return path.withUTF8 { bytes in
                guard bytes.count >= count else { return false }
                for start in 0...(bytes.count - count) where bytes[start] == UInt8(ascii: ".") {
                    if (1..<count).allSatisfy({ bytes[start + $0] == marker[$0] }) { return true }
                }
                return false
            }
        }
    }

    /// Whether `path` names a conflict copy (so a conflict of a conflict copy stays readable).
    public static func isConflictCopy(_ path: String) -> Bool {
        path.contains(".conflict-")
    }

    /// The device name restricted to letters, digits, `-` and `_` (at most 32), so it can never
    /// add a path separator, a dot segment or a control character; `device` when nothing is left.
    public static func sanitized(_ device: String) -> String {
        var out = ""
        for scalar in device.unicodeScalars where out.unicodeScalars.count < 32 {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" {
                out.unicodeScalars.append(scalar)
            } else if scalar == " " || scalar == "." {
                out.unicodeScalars.append("-")
            }
        }
        return out.isEmpty ? "device" : out
    }

    /// `yyyyMMdd-HHmmss` in UTC.
    static func stamp(_ ms: Int64) -> String {
        let iso = WireTime.string(fromMilliseconds: ms)  // 2026-11-29T17:30:00.123Z
        let digits = iso.prefix(19).filter { $0.isNumber }
        return String(digits.prefix(8)) + "-" + String(digits.dropFirst(8).prefix(6))
    }

    /// The longest prefix of `text` within `bytes` UTF-8 bytes, cut on a character boundary.
    private static func truncated(_ text: String, toBytes bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var out = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > bytes { break }
            out.append(character)
            used += size
        }
        return out.isEmpty ? "note" : out
    }
}
