/// Rules for paths given to new notes, beyond what every path must satisfy.
///
/// A name that looks like another one in listings (a right-to-left override, an invisible
/// character, a trailing space) is how a spoofed note or file is made. New paths are refused
/// such characters; paths already stored keep working (read, update, delete, restore), so
/// nothing a user has becomes unreachable. Zero-width joiner and non-joiner (U+200D, U+200C)
/// stay allowed: emoji sequences and several scripts (Persian, Indic) need them.
///
/// The server checks this when a note is created or renamed; the client uses it to skip
/// local files it could never upload, as "unsyncable name".
extension NotePath {
    /// Why this path may not be given to a new note (or be the target of a rename), or `nil`
    /// when it may.
    public var newNoteProblem: NotePathError? {
        // ASCII holds none of these characters; only its spaces need a look, and a byte scan
        // finds whether any segment has one at an edge (splitting every created note's path
        // into segments and asking each end's Unicode properties was 4 % of an upload's server
        // instructions).
        if Self.isASCII(value) {
            guard Self.asciiSegmentEdgeSpace(value) else { return nil }
        } else {
            for scalar in value.unicodeScalars {
                if Self.bidiControls.contains(scalar.value) { return .bidiControl(Self.name(of: scalar)) }
                if Self.invisibles.contains(where: { $0.contains(scalar.value) }) { return .invisibleCharacter(Self.name(of: scalar)) }
            }
        }
        for segment in segments {
            if let first = segment.unicodeScalars.first, first.properties.isWhitespace { return .segmentSpaces(String(segment)) }
            if let last = segment.unicodeScalars.last, last.properties.isWhitespace { return .segmentSpaces(String(segment)) }
        }
        return nil
    }

    /// Whether a segment of the ASCII `path` starts or ends with ASCII white space (space, tab,
    /// line feed, vertical tab, form feed, carriage return: the ASCII characters Unicode calls
    /// white space).
    private static func asciiSegmentEdgeSpace(_ path: String) -> Bool {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        let slash = UInt8(ascii: "/")
        var previous = slash
        for byte in path.utf8 {
            if (previous == slash && isSpace(byte)) || (byte == slash && isSpace(previous)) { return true }
            previous = byte
        }
        return isSpace(previous)
    }

    /// Validates `raw` as a path for a new note: every path rule, then the new-path rules.
    /// - Throws: `NotePathError` naming the rule, or the character and why it is refused.
    public static func forNewNote(_ raw: String) throws(NotePathError) -> NotePath {
        let path = try NotePath(raw)
        if let problem = path.newNoteProblem { throw problem }
        return path
    }

    /// Explicit directional formatting characters (Unicode Bidi_Control): ALM, LRM, RLM,
    /// LRE/RLE/PDF/LRO/RLO and the isolates LRI/RLI/FSI/PDI.
    static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                            0x2066, 0x2067, 0x2068, 0x2069]

    /// Characters that show as nothing (or as a blank) and have no use in a file name: soft
    /// hyphen, Hangul fillers, Mongolian vowel separator, zero-width space, line and paragraph
    /// separators, word joiner and invisible operators, deprecated format controls, the
    /// byte-order mark, interlinear annotation controls. Not U+200C/U+200D (see above).
    static let invisibles: [ClosedRange<UInt32>] = [
        0x00AD...0x00AD, 0x115F...0x1160, 0x180E...0x180E, 0x200B...0x200B, 0x2028...0x2029,
        0x2060...0x2064, 0x206A...0x206F, 0x3164...0x3164, 0xFEFF...0xFEFF, 0xFFA0...0xFFA0, 0xFFF9...0xFFFB,
    ]

    /// `U+200B ZERO WIDTH SPACE`: the code point, and the Unicode name where the runtime knows it.
    static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return scalar.properties.name.map { "\(code) \($0)" } ?? code
    }
}
