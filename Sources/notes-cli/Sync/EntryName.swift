import NotesCore

/// Which local file names can be entries (notes or attachments), and the conflict-copy names
/// of either kind: `NotePath`'s rules but the extension, as the server applies them.
enum EntryName {
    /// Why `path` cannot be an entry's path; `nil` when it can.
    static func problem(_ path: String) -> NotePathError? {
        do {
            _ = try NotePath(entry: path)
            return nil
        } catch {
            return error
        }
    }

    /// Why `path` cannot be the path of an entry created now (the new-path rules too).
    static func newEntryProblem(_ path: String) -> NotePathError? {
        do {
            _ = try NotePath.forNewEntry(path)
            return nil
        } catch {
            return error
        }
    }

    /// The conflict-copy path for `path`: `NAME.conflict-DEVICE-TIME.md` for a note, and for an
    /// attachment the same stem with the attachment's own extension (`photo.conflict-…-….png`),
    /// so the copy stays an attachment of the same type that opens like the original.
    static func conflictPath(for path: String, device: String, millisecondsSinceEpoch: Int64, attempt: Int) -> String {
        let (stem, dotted) = split(path)
        let ext = dotted ?? ""  // a name without an extension keeps none
        guard EntryKind(path: path) == .attachment else {
            return ConflictName.path(for: path, device: device, millisecondsSinceEpoch: millisecondsSinceEpoch, attempt: attempt)
        }
        // ConflictName fits the name to the limits counting `.md`; a longer extension may need
        // a shorter stem, taken off byte by byte until the copy fits (at worst, a one-byte stem).
        var stemBytes = Array(stem.utf8)
        while true {
            let copy = ConflictName.path(for: String(decoding: stemBytes, as: UTF8.self) + NotePath.fileExtension, device: device,
                                         millisecondsSinceEpoch: millisecondsSinceEpoch, attempt: attempt)
            let candidate = String(copy.dropLast(NotePath.fileExtension.count)) + ext
            if problem(candidate) == nil || stemBytes.count <= 1 { return candidate }
            stemBytes.removeLast()
        }
    }

    /// What a conflict copy's name says (`ConflictName.parse`), for either kind: the path of the
    /// entry it belongs to and the device that made it; `nil` for a path that is not one.
    static func parseConflict(_ path: String) -> (entry: String, device: String)? {
        guard EntryKind(path: path) == .attachment else { return ConflictName.parse(path).map { ($0.note, $0.device) } }
        let (stem, dotted) = split(path)
        let ext = dotted ?? ""
        // `Makefile.conflict-dev-20261201-100000` has no extension of its own: the stamp is the tail.
        if let parsed = ConflictName.parse(path + NotePath.fileExtension) {
            return (String(parsed.note.dropLast(NotePath.fileExtension.count)), parsed.device)
        }
        guard let parsed = ConflictName.parse(stem + NotePath.fileExtension) else { return nil }
        return (String(parsed.note.dropLast(NotePath.fileExtension.count)) + ext, parsed.device)
    }

    /// `img/photo.png` → (`img/photo`, `.png`); no extension → (path, nil).
    private static func split(_ path: String) -> (String, String?) {
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return (path, nil) }
        return (String(path[..<dot]), String(path[dot...]))
    }
}
