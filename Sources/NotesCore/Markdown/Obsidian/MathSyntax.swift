/// Where `$…$` and `$$…$$` math ends, read from the raw text of a paragraph as Obsidian reads
/// it: an opening `$` followed by a non-space, a closing `$` preceded by a non-space and not
/// followed by a digit (so `$5 and $10` is money, not math); `$$` may span lines. A
/// backslash-escaped `\$` never opens or closes, and inline math holds no backtick.
enum MathSyntax {
    /// The math starting at `start` (a `$`) in `bytes`: whether it is display math, the TeX
    /// between the delimiters, and the index after the closing delimiter. Nil when no math
    /// starts there.
    static func match(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (display: Bool, tex: Range<Int>, end: Int)? {
        let dollar = UInt8(ascii: "$")
        guard start < bytes.count, bytes[start] == dollar, start == 0 || bytes[start - 1] != UInt8(ascii: "\\") else { return nil }
        if start + 1 < bytes.count, bytes[start + 1] == dollar {
            // Display: up to the next `$$`.
            var index = start + 2
            while index + 1 < bytes.count {
                if bytes[index] == dollar, bytes[index + 1] == dollar, bytes[index - 1] != UInt8(ascii: "\\") {
                    let tex = (start + 2)..<index
                    return tex.isEmpty ? nil : (true, tex, index + 2)
                }
                index += 1
            }
            return nil
        }
        guard start + 1 < bytes.count, !Self.isSpace(bytes[start + 1]) else { return nil }
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            // Inline math stays on its line, and a code span wins over it (`$x$` in backticks is code).
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "`") { return nil }
            if byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == dollar {
                let followedByDigit = index + 1 < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 1])
                guard !Self.isSpace(bytes[index - 1]), !followedByDigit else { return nil }
                return (false, (start + 1)..<index, index + 1)
            }
            index += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    /// The element KaTeX typesets in the page (class `math`, and `math-inline` or
    /// `math-display`), holding the TeX source escaped: without JavaScript, the source shows.
    static func html(tex: String, display: Bool) -> String {
        let escaped = HTMLEscaping.escape(tex)
        return display ? "<span class=\"math math-display\">\(escaped)</span>" : "<span class=\"math math-inline\">\(escaped)</span>"
    }
}
