import Testing
@testable import NotesCore

@Suite("Markdown rendering")
struct MarkdownRendererTests {
    @Test("renders CommonMark")
    func rendersCommonMark() {
        #expect(MarkdownRenderer.safe.html(from: "# Title\n\nSome *text*.\n") == "<h1>Title</h1>\n<p>Some <em>text</em>.</p>\n")
    }

    @Test("safe mode omits raw HTML and empties script links")
    func safeModeStripsScripts() {
        let html = MarkdownRenderer.safe.html(from: "<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n")
        #expect(!html.contains("<script"))
        #expect(!html.contains("onerror"))
        #expect(!html.contains("javascript:"))
        #expect(html.contains("raw HTML omitted"))
    }

    @Test("unsafe mode passes raw HTML through, for trusted notes only")
    func unsafeModeKeepsHTML() {
        #expect(MarkdownRenderer(allowsUnsafeHTML: true).html(from: "<b>hi</b>\n").contains("<b>hi</b>"))
    }

    @Test("invalid UTF-8 is repaired, not passed through")
    func repairsInvalidUTF8() {
        let html = MarkdownRenderer.safe.html(from: [0x61, 0xFF, 0x62])
        #expect(html == "<p>a\u{FFFD}b</p>\n")
    }

    @Test("empty input renders to nothing")
    func emptyInput() {
        #expect(MarkdownRenderer.safe.html(from: "") == "")
    }
}
