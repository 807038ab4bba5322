/// Which local file names can be notes, and a name to suggest for one that cannot.
///
/// Sync never renames a user's file: a file whose name is not a valid note path (a backslash
/// or a control character, which Linux allows; an embedding, override or isolate control, which
/// the server refuses for new paths) is left where it is and named at every sync until the user
/// renames it. `repaired(_:)` is the name offered for it.
public enum SyncableName {
    /// Why `path` cannot be a note's path; `nil` when it can.
    ///
    /// Asked of every note file, tracked or not; `newNoteProblem(_:)` adds the rule for new paths.
    public static func problem(_ path: String) -> NotePathError? {
        do {
            _ = try NotePath(path)
            return nil
        } catch {
            return error
        }
    }

    /// Why `path` cannot be the path of a note created now: `problem(_:)`, or the rule the
    /// server applies to new paths only (`NotePath.newNoteProblem`: the embedding, override and
    /// isolate controls). Paths stored before that rule keep working, so this is asked only of
    /// files that are not already notes.
    public static func newNoteProblem(_ path: String) -> NotePathError? {
        do {
            return try NotePath(path).newNoteProblem
        } catch {
            return error
        }
    }

    /// `path` with only what no note path may hold replaced by `-`: control characters,
    /// backslashes and the refused direction controls. Everything else, the zero-width
    /// characters and spaces scripts write included, stays as it is. An empty segment becomes `_`.
    /// The caller still validates the result (for its length, a leading dot).
    public static func repaired(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            var out = String.UnicodeScalarView()
            for scalar in segment.unicodeScalars {
                let refused = scalar.properties.generalCategory == .control || scalar == "\\" || NotePath.isRefusedDirectionControl(scalar)
                out.append(refused ? "-" : scalar)
            }
            return out.isEmpty ? "_" : String(out)
        }
        return segments.joined(separator: "/")
    }
}
