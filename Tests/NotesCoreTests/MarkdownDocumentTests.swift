import Testing
@testable import NotesCore

@Suite("Markdown rendering through the node tree")
struct MarkdownDocumentTests {
    @Test("without rewrites, the node tree renders exactly what the direct renderer does")
    func sameAsDirectRendering() {
        let markdown = "# Title\n\nSee [other](other.md) and ![pic](p.png).\n\n<b>raw</b>\n"
        for renderer in [MarkdownRenderer.safe, MarkdownRenderer(allowsUnsafeHTML: true)] {
            #expect(renderer.render(Array(markdown.utf8)).html == renderer.html(from: markdown))
        }
    }

    @Test("the title is the plain text of the first heading, at any level, markup and raw HTML dropped")
    func titleIsFirstHeadingText() {
        let rendered = MarkdownRenderer.safe.render(Array("intro\n\n## A *fine* `day` <b>x</b> &amp; more\n\n# Later\n".utf8))
        #expect(rendered.title == "A fine day x & more")
        #expect(MarkdownRenderer.safe.render(Array("Setext\nheading\n===\n".utf8)).title == "Setext heading")
    }

    @Test("a note without a heading, or with an empty one, has no title")
    func noTitle() {
        #expect(MarkdownRenderer.safe.render(Array("just text\n".utf8)).title == nil)
        #expect(MarkdownRenderer.safe.render(Array("#\n\ntext\n".utf8)).title == nil)
        #expect(MarkdownRenderer.safe.render([UInt8]()).title == nil)
    }

    @Test("links and images are offered to the rewriter, which can replace their destinations")
    func rewritesDestinations() {
        var seen: [LinkDestination] = []
        let rendered = MarkdownRenderer.safe.render(Array("[a](a.md#x) ![i](<my pic.png>) [e](https://e.example)\n".utf8)) { destination in
            seen.append(destination)
            return destination.url == "a.md#x" ? "a.html#x" : nil
        }
        #expect(seen == [LinkDestination(url: "a.md#x", isImage: false), LinkDestination(url: "my pic.png", isImage: true),
                         LinkDestination(url: "https://e.example", isImage: false)])
        #expect(rendered.html == "<p><a href=\"a.html#x\">a</a> <img src=\"my%20pic.png\" alt=\"i\" /> <a href=\"https://e.example\">e</a></p>\n")
    }

    @Test("safe mode still refuses a javascript: destination that a rewrite produced: the link becomes its text")
    func rewriteCannotBypassSafeMode() {
        let rendered = MarkdownRenderer.safe.render(Array("[*a*](a.md)\n".utf8)) { _ in "javascript:alert(1)" }
        #expect(rendered.html == "<p><em>a</em></p>\n")
    }

    @Test("standalone pages escape the title and forbid scripts unless unsafe output was asked for")
    func standalonePage() {
        let page = HTMLPage(title: "<script>x</script> & \"q\"", bodyHTML: "<p>hi</p>\n").render()
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(page.contains("<title>&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;</title>"))
        #expect(page.contains("script-src 'none'"))
        #expect(page.contains("<style>\n"))
        #expect(page.contains("<main>\n<p>hi</p>\n</main>"))
        let unsafe = HTMLPage(title: "t", bodyHTML: "", stylesheet: .linked(href: "../style.css"), indexHref: "../index.html",
                              allowsScripts: true).render()
        #expect(!unsafe.contains("Content-Security-Policy"))
        #expect(unsafe.contains("<link rel=\"stylesheet\" href=\"../style.css\">"))
        #expect(unsafe.contains("<nav><a href=\"../index.html\">All notes</a></nav>"))
    }
}
