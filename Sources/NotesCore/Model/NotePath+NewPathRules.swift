/// The one rule for paths given to new entries, beyond what every path must satisfy.
///
/// Every name that is valid UTF-8 without control characters is stored byte-exact: scripts
/// need characters that show as nothing (Khmer and Thai write U+200B ZERO WIDTH SPACE between
/// words, Persian needs U+200C ZERO WIDTH NON-JOINER, Indic scripts and emoji sequences U+200D
/// ZERO WIDTH JOINER, Arabic and Hebrew the marks U+200E, U+200F and U+061C). Spoofing is
/// handled where names are shown (`HiddenCharacters`), not where they are stored.
///
/// Only the explicit embedding, override and isolate controls are refused, U+202A–202E and
/// U+2066–2069: no script needs them in a name, and one of them turns `invoice‮dm.exe` into what
/// reads as `invoiceexe.md`. Paths stored before this rule keep working (read, update, delete,
/// restore), so nothing a user has becomes unreachable.
///
/// The server checks this when an entry is created or renamed; the client leaves a local file
/// named so where it is, reported at every sync, until the user renames it.
extension NotePath {
    /// Why this path may not be given to a new note (or be the target of a rename), or `nil`
    /// when it may.
    public var newNoteProblem: NotePathError? {
        // The refused controls are all outside ASCII, which most paths are.
        if Self.isASCII(value) { return nil }
        for scalar in value.unicodeScalars where Self.isRefusedDirectionControl(scalar) {
            return .bidiControl(HiddenCharacters.name(of: scalar))
        }
        return nil
    }

    /// Validates `raw` as a path for a new note: every path rule, then the new-path rule.
    /// - Throws: `NotePathError` naming the rule, or the character and why it is refused.
    public static func forNewNote(_ raw: String) throws(NotePathError) -> NotePath {
        let path = try NotePath(raw)
        if let problem = path.newNoteProblem { throw problem }
        return path
    }

    /// Whether `scalar` is one of the explicit embedding, override and isolate controls
    /// (LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI), the only characters refused in new names.
    public static func isRefusedDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
