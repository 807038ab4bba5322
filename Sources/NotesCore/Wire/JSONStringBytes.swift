/// The bytes a JSON string cannot hold as they are (control characters, `"` and `\`), found
/// eight at a time: what the reader stops at inside a string and what the writer escapes.
///
/// A note's text is most of an upload's body and of a changes page, and looking at it a byte at
/// a time was a twentieth of a clone's CPU and a tenth of an upload's client instructions.
enum JSONStringBytes {
    /// Whether `byte` is written escaped: a control character, `"` or `\`.
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The high bit of each byte of `word` (little-endian: the first byte lowest) that needs an
    /// escape. Exact, byte by byte (no borrow crosses bytes): `~(((y & 0x7F…) + 0x7F…) | y | 0x7F…)`
    /// has the high bit of exactly the zero bytes of `y`, and a control character is a byte whose
    /// top three bits are clear.
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        func zeroBytes(_ y: UInt64) -> UInt64 { ~(((y & low7) &+ low7) | y | low7) }
        return zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C)) | zeroBytes(word & (ones &* 0xE0))
    }

    /// The index of the first byte at or after `start` (of `count` at `base`) that needs an
    /// escape, or `count`: the plain run of a string.
    static func plainRunEnd(_ base: UnsafeRawPointer, count: Int, from start: Int) -> Int {
        var at = start
        while at + 8 <= count {
            let hits = escapeMask(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            if hits != 0 { return at + hits.trailingZeroBitCount / 8 }
            at += 8
        }
        while at < count, !needsEscape(base.load(fromByteOffset: at, as: UInt8.self)) { at += 1 }
        return at
    }
}
