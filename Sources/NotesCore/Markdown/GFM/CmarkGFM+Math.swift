#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CmarkGFM {
    /// Makes the `math` syntax extension: an inline parser, called by cmark-gfm at each `$`
    /// while it parses a paragraph, that takes `$…$` or `$$…$$` from the raw text, before
    /// emphasis or backslash escapes can change the TeX, and leaves a custom inline holding
    /// `MathSyntax.html`. cmark-gfm never calls it inside code.
    static func makeMathExtension(bind: (String) throws(CmarkGFMError) -> UnsafeMutableRawPointer) throws(CmarkGFMError) -> OpaquePointer {
        let new = unsafeBitCast(try bind("cmark_syntax_extension_new"), to: (@convention(c) (UnsafePointer<CChar>) -> OpaquePointer?).self)
        let setMatch = unsafeBitCast(try bind("cmark_syntax_extension_set_match_inline_func"),
                                     to: (@convention(c) (OpaquePointer, MatchInline) -> Void).self)
        let setSpecial = unsafeBitCast(try bind("cmark_syntax_extension_set_special_inline_chars"),
                                       to: (@convention(c) (OpaquePointer, OpaquePointer?) -> Void).self)
        let append = unsafeBitCast(try bind("cmark_llist_append"),
                                   to: (@convention(c) (UnsafeRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer?).self)
        let allocator = unsafeBitCast(try bind("cmark_get_default_mem_allocator"), to: (@convention(c) () -> UnsafeRawPointer?).self)
        guard let math = new("math") else { throw .missingExtension("math") }
        // The list holds characters cast to pointers, as cmark-gfm's own extensions do.
        let special = append(allocator(), nil, UnsafeMutableRawPointer(bitPattern: UInt(UInt8(ascii: "$"))))
        setSpecial(math, special)
        setMatch(math, matchMath)
        return math
    }

    typealias MatchInline = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UInt8, OpaquePointer?) -> OpaquePointer?

    /// The inline parser: math at the current offset becomes a custom inline node; anything
    /// else returns NULL and the `$` stays text.
    ///
    /// A table cell may not hold a custom inline (the table extension refuses it, and the node
    /// would be lost), so there the `$…$` stays text: its TeX shows, untypeset.
    private static let matchMath: MatchInline = { _, _, parent, character, inlineParser in
        guard character == UInt8(ascii: "$"), let inlineParser, case .success(let library) = CmarkGFM.shared,
              let chunk = library.inlineParserGetChunk(inlineParser) else { return nil }
        if let parent, let type = library.nodeGetTypeString(parent), strcmp(type, "table_cell") == 0 { return nil }
        // `cmark_chunk` is { unsigned char *data; int32_t len; int32_t alloc; }.
        let length = Int(chunk.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.stride, as: Int32.self))
        guard let data = chunk.load(as: UnsafePointer<UInt8>?.self) else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: length)
        let offset = Int(library.inlineParserGetOffset(inlineParser))
        guard let math = MathSyntax.match(bytes, at: offset), let node = library.nodeNew(GFMNodeType.customInline) else { return nil }
        let tex = String(decoding: bytes[math.tex], as: UTF8.self)
        _ = library.nodeSetOnEnter(node, MathSyntax.html(tex: tex, display: math.display))
        _ = library.nodeSetOnExit(node, "")
        library.inlineParserSetOffset(inlineParser, Int32(math.end))
        return node
    }
}
