/// Heading ids as GitHub makes them, so a `#fragment` written for GitHub works in an export too:
/// lower case, everything but letters, digits, `_`, `-` and spaces dropped, spaces made `-`;
/// a repeated slug gets `-1`, `-2`, … in document order.
public struct HeadingSlugger: Sendable {
    private var used: [String: Int] = [:]

    public init() {}

    /// The slug of `text` without the repeat suffix: what a link to that heading names.
    public static func slug(_ text: String) -> String {
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
