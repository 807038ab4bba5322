/// Which local file names can be notes, and the nearest name that can for one that cannot.
///
/// Sync does not leave a note file behind for its name: a file whose name is not a valid note
/// path (a backslash or a control character, which Linux allows; later also the names the
/// server refuses for new notes) is moved to a conflict copy under a repaired name, which syncs.
public enum SyncableName {
    /// Why `path` cannot be a new note's path; `nil` when it can.
    ///
    /// Asked of every note file, tracked or not; `newNoteProblem(_:)` adds the rules for new paths.
    public static func problem(_ path: String) -> NotePathError? {
        do {
            _ = try NotePath(path)
            return nil
        } catch {
            return error
        }
    }

    /// Why `path` cannot be the path of a note created now: `problem(_:)`, or one of the rules
    /// the server applies to new paths only (`NotePath.newNoteProblem`: bidi controls, invisible
    /// characters, spaces at the ends of a name). Paths stored before those rules keep working,
    /// so this is asked only of files that are not already notes.
    public static func newNoteProblem(_ path: String) -> NotePathError? {
        do {
            return try NotePath(path).newNoteProblem
        } catch {
            return error
        }
    }

    /// `path` with what no note path may hold replaced: control and invisible formatting
    /// characters (bidi controls, zero-width spaces) and backslashes become `-`, and spaces at
    /// the ends of each name go. The caller still validates the result (for its length).
    public static func repaired(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            var out = String.UnicodeScalarView()
            for scalar in segment.unicodeScalars {
                let category = scalar.properties.generalCategory
                out.append(category == .control || category == .format || scalar == "\\" ? "-" : scalar)
            }
            let trimmed = String(out).trimmingSpaces()
            return trimmed.isEmpty ? "_" : trimmed
        }
        return segments.joined(separator: "/")
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
