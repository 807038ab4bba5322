/// Characters that change or hide how a name looks without showing themselves: what the
/// terminal and the web app make visible wherever they show a name.
///
/// Names keep these characters as stored (scripts need most of them, see
/// `NotePath.newNoteProblem`); only the display marks them, so a name that looks like another one
/// (`invoice‮dm.exe`, `pass​words` beside `passwords`) can be told apart. The zero-width
/// joiner and non-joiner are not marked: they change how the letters around them join, which
/// shows, and every emoji family or Persian word would otherwise be cluttered.
public enum HiddenCharacters {
    /// Whether `scalar` is one to mark: a direction control (`isDirectionControl`) or a
    /// character that shows as nothing or as a blank (soft hyphen, Hangul fillers, Mongolian
    /// vowel separator, zero-width space, line and paragraph separators, word joiner and
    /// invisible operators, deprecated format controls, byte-order mark, interlinear
    /// annotation controls).
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x115F, 0x1160, 0x180E, 0x200B, 0x2028, 0x2029, 0x2060...0x2064, 0x206A...0x206F, 0x3164, 0xFEFF,
             0xFFA0, 0xFFF9...0xFFFB:
            true
        default:
            isDirectionControl(scalar)
        }
    }

    /// Whether `scalar` is an explicit directional formatting character (Unicode Bidi_Control):
    /// ALM, LRM, RLM, the embeddings and overrides and their PDF, the isolates and their PDI.
    /// Shown, such a character would reorder the text after it, so a display replaces it.
    public static func isDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `U+200B`: the code point as people look it up.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `U+200B ZERO WIDTH SPACE`: the code point, and the Unicode name where the runtime knows it.
    public static func name(of scalar: Unicode.Scalar) -> String {
        let code = codePoint(scalar)
        return scalar.properties.name.map { "\(code) \($0)" } ?? code
    }
}
