/// cmark-gfm's node types, as `cmark-gfm.h` (0.29.0.gfm.6) numbers them: a block or inline
/// flag ORed with a value. The header cannot be imported beside libcmark's (see `CmarkGFM`), so
/// the numbers are written here; the extensions' own types (table, strikethrough) are
/// registered at run time and recognised by their type string instead.
enum GFMNodeType {
    private static let block: UInt32 = 0x8000
    private static let inline: UInt32 = 0x8000 | 0x4000

    static let document = block | 0x1
    static let blockQuote = block | 0x2
    static let list = block | 0x3
    static let item = block | 0x4
    static let codeBlock = block | 0x5
    static let htmlBlock = block | 0x6
    static let customBlock = block | 0x7
    static let paragraph = block | 0x8
    static let heading = block | 0x9
    static let thematicBreak = block | 0xA
    static let footnoteDefinition = block | 0xB

    static let text = inline | 0x1
    static let softBreak = inline | 0x2
    static let lineBreak = inline | 0x3
    static let code = inline | 0x4
    static let htmlInline = inline | 0x5
    static let customInline = inline | 0x6
    static let emphasis = inline | 0x7
    static let strong = inline | 0x8
    static let link = inline | 0x9
    static let image = inline | 0xA
    static let footnoteReference = inline | 0xB

    /// Whether `type` is a block (as opposed to inline) node.
    static func isBlock(_ type: UInt32) -> Bool { type & 0xC000 == block }
}

/// cmark-gfm's iterator events (`cmark_event_type`).
enum GFMEvent {
    static let done: UInt32 = 1
    static let enter: UInt32 = 2
    static let exit: UInt32 = 3
}

/// cmark-gfm's option bits (`CMARK_OPT_*` in `cmark-gfm.h`).
enum GFMOption {
    static let validateUTF8: Int32 = 1 << 9
    static let smart: Int32 = 1 << 10
    static let footnotes: Int32 = 1 << 13
    static let unsafe: Int32 = 1 << 17
}
