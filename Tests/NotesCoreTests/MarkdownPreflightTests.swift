import Testing
@testable import NotesCore

/// The note of 100,000 `>`, then long lines of `*` and `[`, then 50,000 nested list items, that
/// held cmark for about a minute (400 KB).
let hostileNote = String(repeating: ">", count: 100_000) + " x\n" + String(repeating: "*", count: 50_000) + "a"
    + String(repeating: "*", count: 50_000) + "\n" + String(repeating: "[", count: 100_000) + "\n"
    + String(repeating: "- ", count: 50_000) + "x\n"

@Suite("Markdown preflight: the bound before the parser")
struct MarkdownPreflightTests {
    private func refusal(_ markdown: String, _ preflight: MarkdownPreflight = MarkdownPreflight()) -> MarkdownPreflight.Refusal? {
        var markdown = markdown
        return markdown.withUTF8 { preflight.refusal(of: $0) }
    }

    @Test("the 400 KB note that held cmark for a minute renders as its escaped text with a notice, in every mode")
    func hostileNoteIsShownAsText() throws {
        #expect(refusal(hostileNote) == .nestingTooDeep(depth: 100_000, limit: 32))
        let html = MarkdownRenderer.safe.html(from: hostileNote)
        #expect(html.hasPrefix("<p class=\"notes-unrendered\" role=\"note\">This note is shown as plain text"))
        #expect(html.contains("<pre class=\"notes-unrendered-text\">&gt;&gt;&gt;"))
        #expect(html.contains(String(repeating: "[", count: 100_000)), "every byte of the note is shown")
        #expect(!html.contains("<blockquote>"))

        let rendered = MarkdownRenderer.safe.render(hostileNote.utf8, extensions: MarkdownExtensions(headingIDs: true))
        #expect(rendered.html == html && rendered.title == nil)
        let unsafe = MarkdownRenderer(allowsUnsafeHTML: true).withHTML(from: hostileNote.utf8) { String(decoding: $0, as: UTF8.self) }
        #expect(unsafe == html, "notes render --unsafe shows it the same way")
    }

    @Test("script payloads in a refused note stay text, even in unsafe mode")
    func refusedNoteEscapesScripts() {
        let payloads = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>",
                        "</pre><script>alert(1)</script>", "<a href=\"javascript:alert(1)\">x</a>", "&lt;script&gt;"]
        for payload in payloads {
            let note = String(repeating: "> ", count: 40) + payload + "\n"
            for renderer in [MarkdownRenderer.safe, MarkdownRenderer(allowsUnsafeHTML: true)] {
                let html = renderer.withHTML(from: note.utf8) { String(decoding: $0, as: UTF8.self) }
                #expect(html.hasPrefix("<p class=\"notes-unrendered\""), "\(payload)")
                #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("<svg") && !html.contains("<a "), "\(payload)")
                #expect(html.components(separatedBy: "</pre>").count == 2, "the payload cannot close the <pre>: \(payload)")
                #expect(html.contains(HTMLEscaping.escape(payload)), "\(payload)")
            }
        }
    }

    @Test("a refused note's invalid UTF-8 and NUL show as U+FFFD")
    func refusedNoteRepairsBytes() {
        let bytes = Array(String(repeating: ">", count: 40).utf8) + [0x20, 0x61, 0xFF, 0x00, 0x62, 0x0A]
        let html = MarkdownRenderer.safe.html(from: bytes)
        #expect(html.contains("a\u{FFFD}\u{FFFD}b"))
        #expect(!html.contains("\u{0}"))
    }

    @Test("nesting up to the limit renders; one level more is shown as text")
    func nestingLimitIsExact() {
        #expect(refusal(String(repeating: ">", count: 32) + " x\n") == nil)
        #expect(refusal(String(repeating: ">", count: 33) + " x\n") == .nestingTooDeep(depth: 33, limit: 32))
        let deepest = MarkdownRenderer.safe.html(from: String(repeating: "> ", count: 32) + "x\n")
        #expect(deepest.components(separatedBy: "<blockquote>").count == 33)
        // An outline written with indentation: each level continues the ones above it.
        let outline = (0..<32).map { String(repeating: "  ", count: $0) + "- level \($0)\n" }.joined()
        #expect(refusal(outline) == nil)
        #expect(MarkdownRenderer.safe.html(from: outline).components(separatedBy: "<li>").count == 33)
        #expect(refusal(outline + String(repeating: "  ", count: 32) + "- level 32\n") == .nestingTooDeep(depth: 33, limit: 32))
        // Markers of every kind count, and mixed ones add up.
        #expect(refusal(String(repeating: "> 1. * ", count: 11) + "x\n") == .nestingTooDeep(depth: 33, limit: 32))
        #expect(refusal(String(repeating: "- ", count: 33) + "x\n") == .nestingTooDeep(depth: 33, limit: 32))
    }

    @Test("deep indentation alone is not nesting: code blocks and indented text render")
    func indentationWithoutContainersRenders() {
        let note = "Some code:\n\n" + String(repeating: " ", count: 200) + "deeply indented code\n\n\t\t\t\t\t\t\t\t\t\t\ttabs\n"
        #expect(refusal(note) == nil)
        #expect(MarkdownRenderer.safe.html(from: note).contains("<pre><code>"))
    }

    @Test("a lazy continuation line is bounded by the line that opened its paragraph")
    func lazyContinuationIsBounded() {
        // The hostile note's shape, small: a deep paragraph continued by a line without markers.
        let small = MarkdownPreflight(maxNestingDepth: 4)
        #expect(refusal(">>>> x\n" + String(repeating: "*", count: 100) + "\n", small) == nil)
        #expect(refusal(">>>>> x\n" + String(repeating: "*", count: 100) + "\n", small) == .nestingTooDeep(depth: 5, limit: 4))
        // Indentation continues at most the containers opened before it.
        #expect(refusal("- - x\n" + String(repeating: " ", count: 40) + "- y\n", small) == nil)
        #expect(refusal("- - - x\n      - - y\n", small) == .nestingTooDeep(depth: 5, limit: 4))
    }

    @Test("more lines and markup characters than the limit are shown as text; the limit itself renders")
    func markupLimit() {
        let preflight = MarkdownPreflight(maxInlineNodes: 100)
        #expect(refusal(String(repeating: "*a", count: 100), preflight) == nil)
        #expect(refusal(String(repeating: "*a", count: 101), preflight) == .tooMuchMarkup(limit: 100))
        #expect(refusal(String(repeating: "a\n", count: 101), preflight) == .tooMuchMarkup(limit: 100))
        #expect(refusal(String(repeating: "a\r\n", count: 100), preflight) == nil, "CR LF is one line break")
        #expect(refusal(String(repeating: "[", count: 101), preflight) == .tooMuchMarkup(limit: 100))
        #expect(refusal(String(repeating: "word ", count: 10_000), preflight) == nil, "plain text costs no nodes")
        // Smart punctuation makes quotes, dots and dashes nodes too.
        let dots = String(repeating: "a.", count: 101)
        #expect(refusal(dots, preflight) == nil)
        #expect(MarkdownRenderer(smartPunctuation: true, preflight: preflight).html(from: dots).hasPrefix("<p class=\"notes-unrendered\""))
        #expect(MarkdownRenderer(preflight: preflight).html(from: dots) == "<p>\(dots)</p>\n")
    }

    /// Notes whose nesting is at or past the limit, written every way lines and containers can be.
    static let nestingShapes: [String] = [
        String(repeating: "> ", count: 32) + "x\n",
        String(repeating: "> ", count: 40) + "x\n",
        (0..<40).map { String(repeating: "  ", count: $0) + "- level \($0)\n" }.joined(),
        ">>>>> x\n" + String(repeating: "words and *some* markup ", count: 20) + "\n" + String(repeating: "- ", count: 30) + "y\n",
        String(repeating: "> 1. * ", count: 11) + "x\n",
        (0..<40).map { String(repeating: "> ", count: $0) + "x\r\n" }.joined(),
        (0..<40).map { String(repeating: "> ", count: $0) + "x\r" }.joined(),
        "text\r" + String(repeating: "- ", count: 33) + "x\n",
    ]

    @Test("a note within the markup bound is checked for nesting alone, with the same verdict as when its markup is counted",
          arguments: nestingShapes.indices)
    func nestingVerdictWithoutCounting(index: Int) {
        let note = Self.nestingShapes[index]
        let bytes = note.utf8.count
        // Within the bound by its size alone: lines' content is skipped. One less: every line is counted.
        let skipping = refusal(note, MarkdownPreflight(maxInlineNodes: bytes))
        let counting = refusal(note, MarkdownPreflight(maxInlineNodes: bytes - 1))
        #expect(skipping == counting)
        #expect(skipping == refusal(note))
    }

    /// Each hostile shape, 400 KB or more: rendered (it is within the bound) or shown as text,
    /// and either way finished long before the time limit (cmark alone took a minute on the first).
    static let adversarial: [(String, String)] = [
        ("the note from the report", hostileNote),
        ("deep lists", String(repeating: "- ", count: 200_000) + "x\n"),
        ("deep lists by indentation", (0..<2_000).map { String(repeating: " ", count: 2 * $0) + "- x\n" }.joined()),
        ("deep block quotes, then a lazy line of brackets", String(repeating: ">", count: 200_000) + " x\n" + String(repeating: "[", count: 200_000) + "\n"),
        ("long emphasis runs", String(repeating: "*", count: 200_000) + "a" + String(repeating: "*", count: 200_000) + "\n"),
        ("alternating emphasis", String(repeating: "*_", count: 100_000) + "a" + String(repeating: "_*", count: 100_000) + "\n"),
        ("long bracket runs", String(repeating: "[", count: 400_000) + "\n"),
        ("brackets at depth 32", String(repeating: ">", count: 32) + " x\n" + String(repeating: "[", count: 400_000) + "\n"),
        ("many link reference definitions", (0..<40_000).map { "[r\($0)]: /u\($0)\n" }.joined() + (0..<40_000).map { "[r\($0)] " }.joined()),
        ("long tables of pipes", String(repeating: String(repeating: "|", count: 100) + "\n", count: 4_000)),
        ("many short lines", String(repeating: "a\n", count: 600_000)),
        ("nested images", String(repeating: "![", count: 60_000) + "a" + String(repeating: "](u)", count: 60_000) + "\n"),
    ]

    @Test("hostile shapes render or are shown as text, in bounded time", .timeLimit(.minutes(1)), arguments: adversarial.indices)
    func adversarialShapesFinish(index: Int) {
        let (_, markdown) = Self.adversarial[index]
        let html = MarkdownRenderer.safe.render(markdown.utf8, extensions: MarkdownExtensions(headingIDs: true)).html
        if refusal(markdown) != nil {
            #expect(html.hasPrefix("<p class=\"notes-unrendered\""))
            #expect(html.utf8.count >= markdown.utf8.count, "the whole text is shown")
        } else {
            #expect(!html.hasPrefix("<p class=\"notes-unrendered\""))
            #expect(!html.isEmpty)
        }
    }
}
