/// Heading ids as GitHub makes them, so a `#fragment` written for GitHub works in an export too:
/// lower case, everything but letters, digits, `_`, `-` and spaces dropped, spaces made `-`;
/// a repeated slug gets `-1`, `-2`, … in document order.
public struct HeadingSlugger: Sendable {
    private var used: [String: Int] = [:]

    public init() {}

    /// The slug of `text` without the repeat suffix: what a link to that heading names.
    public static func slug(_ text: String) -> String {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiSlug(text) : unicodeSlug(text)
    }

    /// `slug(_:)` by the Unicode rules, for any text (what `asciiSlug` must agree with).
    static func unicodeSlug(_ text: String) -> String {
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            let properties = scalar.properties
            if scalar == " " {
                out += "-"
            } else if scalar == "-" || scalar == "_" || properties.isAlphabetic || properties.numericType != nil
                        || properties.generalCategory == .nonspacingMark || properties.generalCategory == .spacingMark {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `slug(_:)` of ASCII `text`, byte by byte: ASCII's only letters are A–Z and a–z, its only
    /// numerals 0–9, and it has no marks, so this keeps exactly what the Unicode rules keep
    /// without lower-casing a copy and looking up each scalar's properties (most headings).
    private static func asciiSlug(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "): out.append(UInt8(ascii: "-"))
            default: break
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The next unused id for a heading reading `text` (`section` when nothing of it is left).
    public mutating func slug(for text: String) -> String {
        var base = Self.slug(text)
        if base.isEmpty { base = "section" }
        var candidate = base
        while used[candidate] != nil {
            let count = (used[base] ?? 0) + 1
            used[base] = count
            candidate = base + "-\(count)"
        }
        used[candidate] = 0
        return candidate
    }
}
