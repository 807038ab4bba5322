/// Names people give to sessions and tokens, cleaned before they are stored.
///
/// They are shown later in admin terminals (`notes-server sessions list`) and token lists, so
/// control and format characters (escape sequences, bidi overrides, line breaks) never get in.
enum Label {
    /// The longest label kept, in characters.
    static let maxCharacters = 100

    /// `raw` without control or format characters, trimmed, at most `maxCharacters` long.
    static func clean(_ raw: String) -> String {
        let visible = raw.unicodeScalars.filter { !isHidden($0) }
        let text = String(String.UnicodeScalarView(visible))
        return String(trimmed(text).prefix(maxCharacters))
    }

    /// Whether `raw` is a usable label as given: not blank, short enough, and free of control
    /// and format characters (a token name is refused rather than silently changed).
    static func isValid(_ raw: String) -> Bool {
        !trimmed(raw).isEmpty && raw.count <= maxCharacters && !raw.unicodeScalars.contains(where: isHidden)
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }

    private static func trimmed(_ text: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[first...last]
    }
}
