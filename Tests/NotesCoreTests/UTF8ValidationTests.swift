import Testing
@testable import NotesCore

/// `UTF8Validation` against the standard library's validation, and rendering with and without
/// cmark's own check, which it lets the parse skip.
@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    private static let samples: [[UInt8]] = [
        [], Array("plain ASCII, longer than eight bytes".utf8), Array("é → 😀 日本 \u{301}".utf8),
        [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x9F, 0x80], [0xE0, 0xA0, 0x80],
        [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0x80, 0x80], [0xF0, 0x90, 0x80, 0x80],
        [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xBF],
        [0xE2, 0x82], [0x61, 0xE2, 0x82], [0xF0, 0x9F, 0x98], Array("12345678".utf8) + [0xE2, 0x82, 0xAC] + Array("abcdefgh".utf8),
        Array("1234567".utf8) + [0xC3], [0x00, 0x61], Array("abc\0def\nghi\r\n".utf8),
    ]

    @Test("agrees with the standard library on valid and invalid sequences")
    func agreesWithStandardLibrary() {
        var inputs = Self.samples
        // Every one- and two-byte input, and each sample behind ASCII of every offset mod 8.
        inputs += (0...255).map { [UInt8($0)] }
        for first in stride(from: 0, through: 255, by: 3) { inputs += (0...255).map { [UInt8(first), UInt8($0)] } }
        for sample in Self.samples { inputs += (0..<9).map { Array(repeating: UInt8(ascii: "x"), count: $0) + sample } }
        for input in inputs {
            let expected = String(validating: input, as: UTF8.self) != nil
            #expect(input.withUnsafeBufferPointer(UTF8Validation.isValid) == expected, "\(input)")
        }
    }

    @Test("cmark's own check is skipped only for valid input, which it would leave unchanged")
    func parseOptions() {
        let options = MarkdownRenderer.safe.options
        for input in Self.samples {
            let skipped = input.withUnsafeBufferPointer { MarkdownDocument.parseOptions(options, for: $0) } != options
            #expect(skipped == (String(validating: input, as: UTF8.self) != nil), "\(input)")
        }
        // NUL is valid UTF-8: cmark replaces it whether it checks or not.
        #expect(MarkdownRenderer.safe.html(from: Array("a\0b".utf8)) == "<p>a\u{FFFD}b</p>\n")
        #expect(MarkdownRenderer.safe.html(from: Array("*é* → `😀`\n".utf8)) == "<p><em>é</em> → <code>😀</code></p>\n")
    }
}
