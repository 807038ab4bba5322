/// A length of time as people type it on a command line: a whole number with an optional unit,
/// `45s`, `90m`, `1h`, `30d`, `2w`; a bare number is seconds, as the options that took seconds
/// before accepted it.
public enum DurationValue {
    /// Seconds per unit letter.
    static let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// The longest duration accepted: a hundred years is "forever" for every option here, and
    /// the bound keeps every product far from overflow.
    public static let maximumSeconds = 100 * 365 * 86_400

    /// The text an error shows as examples.
    public static let examples = "45s, 90m, 1h, 30d or 2w (a bare number is seconds)"

    /// The number of seconds `text` stands for, or nil when it is not a duration (a sign, a
    /// fraction, an unknown unit, or more than `maximumSeconds`). Zero is a duration; options
    /// that need a positive one say so themselves.
    public static func seconds(_ text: String) -> Int? {
        var digits = Substring(text), unit = 1
        if let last = text.last, let seconds = units[last] {
            digits = digits.dropLast()
            unit = seconds
        }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let count = Int(digits), count <= maximumSeconds / unit else { return nil }
        return count * unit
    }
}
