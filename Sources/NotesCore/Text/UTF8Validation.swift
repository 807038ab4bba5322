/// Whether bytes are valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
/// U+10FFFF), checked eight ASCII bytes at a time.
///
/// Used where the standard library's or cmark's check cost too much:
/// - cmark's `CMARK_OPT_VALIDATE_UTF8` checks every line byte by byte through a class table while
///   copying it, a tenth of rendering 20 MB of notes. Input that passes this check is what that
///   option would leave unchanged, so the parse can skip it (see `MarkdownDocument.parseOptions`).
/// - `String(validating:as:)` cost about 1,200 instructions for each short string of a JSON
///   answer (see `WireJSONReader`).
///
/// And whether bytes are all ASCII, the common case that needs no check or normalisation at all.
public enum UTF8Validation {
    /// Whether every byte is ASCII: the bytes ORed together, which the compiler vectorises (the
    /// generic `allSatisfy` took about 30 instructions a byte). For names and paths held as
    /// bytes (a folder's walk, the client's index) and for `NotePath`'s strings.
    @inlinable
    public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count,
               UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return false  // a continuation byte, an overlong lead (C0, C1), or past U+10FFFF
            }
            guard index + length <= count else { return false }
            for offset in 1..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            let second = base[index + 1]
            switch lead {
            case 0xE0 where second < 0xA0: return false  // overlong
            case 0xED where second >= 0xA0: return false  // a surrogate
            case 0xF0 where second < 0x90: return false  // overlong
            case 0xF4 where second >= 0x90: return false  // past U+10FFFF
            default: break
            }
            index += length
        }
        return true
    }
}
