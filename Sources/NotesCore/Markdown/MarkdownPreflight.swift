#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bound on what a Markdown parser is given: one linear pass over a note's bytes that
/// decides, before any parser runs, whether the note is rendered or shown as its text.
///
/// cmark's cost grows with the product of two things a note controls: how deep its blocks nest
/// (every inline node cmark appends walks up the containers above it) and how many nodes it
/// makes. A 400 KB note of 100,000 `>` followed by long lines of `*` and `[` takes cmark about a
/// minute; each part alone is fast. So both are bounded here, from above:
///
/// - Nesting: the containers a line opens or continues. A line's own markers (`>`, list bullets,
///   ordered-list numbers) each open at most one container; the containers it continues without
///   markers are list items, each needing at least two columns of indentation, and none deeper
///   than the deepest line before it. A lazy continuation line adds text to a paragraph that an
///   earlier line opened, at that line's depth. So no block is deeper than the largest estimate.
/// - Nodes: each inline node starts at a byte cmark treats as special (`*`, `_`, `[`, `]`, `!`,
///   `` ` ``, `<`, `&`, `\`, and with smart punctuation `"`, `'`, `.`, `-`) or at a line break,
///   so their count bounds the nodes of any parse.
///
/// Within both bounds cmark 0.30 renders anything in a fraction of a second (bench/README.md,
/// "Hostile notes against the renderer": about 300 ns of CPU a node at worst, linear in the
/// bytes otherwise); beyond them a note renders as its escaped text with a notice
/// (`MarkdownPreflight.Refusal.html(showing:)`).
/// Every rendering flavour runs its input through one preflight before its parser.
public struct MarkdownPreflight: Sendable, Equatable {
    /// The deepest nesting of block containers (block quotes, list items) that is rendered.
    public var maxNestingDepth: Int
    /// The most places where an inline node could start (special bytes and line breaks).
    public var maxInlineNodes: Int
    /// Whether `"`, `'`, `.` and `-` start nodes too, as they do with smart punctuation.
    public var countsPunctuation: Bool

    public init(maxNestingDepth: Int = 32, maxInlineNodes: Int = 500_000, countsPunctuation: Bool = false) {
        precondition(maxNestingDepth >= 1 && maxInlineNodes >= 1, "a preflight bound must be positive")
        self.maxNestingDepth = maxNestingDepth
        self.maxInlineNodes = maxInlineNodes
        self.countsPunctuation = countsPunctuation
    }

    /// Why a note is shown as text rather than rendered.
    public enum Refusal: Sendable, Equatable, Error {
        /// Some line nests block quotes or lists deeper than `limit` (`depth` is the first found past it).
        case nestingTooDeep(depth: Int, limit: Int)
        /// The note holds more than `limit` places where inline markup could start.
        case tooMuchMarkup(limit: Int)

        /// A sentence for the reader of the note.
        public var message: String {
            switch self {
            case .nestingTooDeep(_, let limit):
                "This note is shown as plain text: it nests block quotes or lists more than \(limit) levels deep, deeper than notes are rendered."
            case .tooMuchMarkup(let limit):
                "This note is shown as plain text: it holds more than \(limit) lines and markup characters, more than a note is rendered with."
            }
        }
    }

    /// Checks `markdown` against both bounds: nil when it may be rendered, else why not.
    public func refusal(of markdown: UnsafeBufferPointer<UInt8>) -> Refusal? {
        var deepestSoFar = 0
        var nodes = 0
        var index = 0
        let count = markdown.count
        // Each place counted is a byte of its own, so a note of no more bytes than the bound
        // cannot pass it: then only nesting is checked, and a line's content is skipped by
        // `memchr` rather than looked at byte by byte (most of the pass). Lines ending in a
        // lone `\r` take the counting path, which finds those ends.
        let skipsContent = count <= maxInlineNodes && !Self.holdsCarriageReturn(markdown)
        while index < count {
            // The line's container prefix: whitespace and container markers before its content.
            var markers = 0
            var columns = 0
            prefix: while index < count {
                switch markdown[index] {
                case UInt8(ascii: " "):
                    columns += 1
                    index += 1
                case UInt8(ascii: "\t"):
                    columns += 4  // at most 4 columns: counting 4 only raises the estimate
                    index += 1
                case UInt8(ascii: ">"):
                    markers += 1
                    index += 1
                case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "*"):
                    guard Self.endsMarker(markdown, at: index + 1) else { break prefix }
                    markers += 1
                    index += 1
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    var end = index
                    while end < count, end - index < 10, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(markdown[end]) { end += 1 }
                    guard end - index <= 9, end < count, markdown[end] == UInt8(ascii: ".") || markdown[end] == UInt8(ascii: ")"),
                          Self.endsMarker(markdown, at: end + 1) else { break prefix }
                    markers += 1
                    index = end + 1
                default:
                    break prefix
                }
            }
            let depth = markers + min(columns / 2, deepestSoFar)
            if depth > maxNestingDepth { return .nestingTooDeep(depth: depth, limit: maxNestingDepth) }
            deepestSoFar = max(deepestSoFar, depth)
            // The line's content, up to and including its line break.
            if skipsContent {
                index = Self.nextLine(in: markdown, from: index)
                continue
            }
            while index < count {
                let byte = markdown[index]
                index += 1
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    nodes += 1
                    if byte == UInt8(ascii: "\r"), index < count, markdown[index] == UInt8(ascii: "\n") { index += 1 }
                    break
                }
                if Self.startsInline(byte, punctuation: countsPunctuation) { nodes += 1 }
            }
            // Marker characters in the prefix may start inline nodes too (`*` of emphasis).
            nodes += markers
            if nodes > maxInlineNodes { return .tooMuchMarkup(limit: maxInlineNodes) }
        }
        return nil
    }

    private static func holdsCarriageReturn(_ markdown: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = markdown.baseAddress else { return false }
        return memchr(base, Int32(UInt8(ascii: "\r")), markdown.count) != nil
    }

    /// Where the line after the one holding `index` starts (past its `\n`), or the end.
    private static func nextLine(in markdown: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        guard index < markdown.count, let base = markdown.baseAddress,
              let found = memchr(base + index, Int32(UInt8(ascii: "\n")), markdown.count - index) else { return markdown.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
    }

    /// Whether a list marker ending before `index` is one: followed by a space, a tab, a line
    /// break or the end of the note.
    private static func endsMarker(_ markdown: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard index < markdown.count else { return true }
        let next = markdown[index]
        return next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r")
    }

    /// Whether cmark's inline parser stops at `byte` (its `special_chars`, and `smart_chars`).
    private static func startsInline(_ byte: UInt8, punctuation: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "!"),
             UInt8(ascii: "`"), UInt8(ascii: "<"), UInt8(ascii: "&"), UInt8(ascii: "\\"):
            true
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "."), UInt8(ascii: "-"):
            punctuation
        default:
            false
        }
    }
}
