/// PostgreSQL's `text` cannot hold U+0000, which a note may (SQLite keeps it, and the API
/// promises a note's bytes back exactly). The connection therefore stores every text value
/// through this reversible mapping, undone on every read:
///
/// - U+0000 becomes U+10FFFF followed by `0`;
/// - U+10FFFF itself (a noncharacter, never meant for interchange) becomes U+10FFFF twice.
///
/// Text holding neither, which is almost all text, is stored as it is, and the check is one
/// pass over its UTF-8 bytes. Because both sides of a comparison go through the mapping,
/// equality in SQL is unchanged; search sees `0` where a U+0000 was.
enum PostgresTextEscape {
    private static let marker: Unicode.Scalar = "\u{10FFFF}"
    /// The UTF-8 lead byte of U+10FFFF (and of nothing shorter): a cheap first test.
    private static let markerLead: UInt8 = 0xF4

    /// `text` as stored.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0 || $0 == markerLead }) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{0}": output.append(marker); output.append("0")
            case marker: output.append(marker); output.append(marker)
            default: output.append(scalar)
            }
        }
        return String(output)
    }

    /// Stored UTF-8 bytes as the text they stand for.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let stored = String(decoding: bytes, as: UTF8.self)
        guard bytes.contains(markerLead) else { return stored }
        var output = String.UnicodeScalarView()
        var pending = false
        for scalar in stored.unicodeScalars {
            if pending {
                output.append(scalar == "0" ? "\u{0}" : scalar)
                pending = false
            } else if scalar == marker {
                pending = true
            } else {
                output.append(scalar)
            }
        }
        if pending { output.append(marker) }
        return String(output)
    }
}
