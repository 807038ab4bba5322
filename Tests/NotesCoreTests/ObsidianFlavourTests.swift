import Testing
@testable import NotesCore

@Suite("The default flavour: GFM and what Obsidian users write")
struct ObsidianFlavourTests {
    private static func html(_ note: String, unsafe: Bool = false, extensions: MarkdownExtensions = .commonMark) throws -> String {
        try FlavouredRenderer(allowsUnsafeHTML: unsafe).render(Array(note.utf8), extensions: extensions).html
    }

    @Test("tables with alignment, task lists as disabled checkboxes, strikethrough, www. and bare URLs, footnotes")
    func gfmConstructs() throws {
        #expect(try Self.html("| l | c | r |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n").contains("<td align=\"center\">2</td>"))
        #expect(try Self.html("- [ ] open\n- [x] done\n")
            == "<ul>\n<li><input type=\"checkbox\" disabled=\"\" /> open</li>\n<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> done</li>\n</ul>\n")
        #expect(try Self.html("~~gone~~\n") == "<p><del>gone</del></p>\n")
        #expect(try Self.html("www.example.com and https://e.example/x\n")
            == "<p><a href=\"http://www.example.com\">www.example.com</a> and <a href=\"https://e.example/x\">https://e.example/x</a></p>\n")
        let footnote = try Self.html("Text[^1].\n\n[^1]: The note.\n")
        #expect(footnote.contains("<sup class=\"footnote-ref\"><a href=\"#fn-1\" id=\"fnref-1\" data-footnote-ref>1</a></sup>"))
        #expect(footnote.contains("<section class=\"footnotes\" data-footnotes>"))
    }

    @Test("a note past the preflight bound and a note in pure CommonMark stream the bytes they render to")
    func refusedAndCommonMarkNotesStream() throws {
        let deep = String(repeating: "> ", count: 40) + "<script>alert(1)</script> ==x==\n"
        for (renderer, note) in [(FlavouredRenderer(), deep), (FlavouredRenderer(flavour: .commonMark), "# T\n\n| a |\n|---|\n")] {
            var streamed: [UInt8] = []
            let rendering = try renderer.render(Array(note.utf8)) { streamed += $0 }
            let rendered = try renderer.render(Array(note.utf8))
            #expect(String(decoding: streamed, as: UTF8.self) == rendered.html)
            #expect(rendering.title == rendered.title && rendering.html.isEmpty)
        }
        #expect(try Self.html(deep).hasPrefix("<p class=\"notes-unrendered\""))
    }

    @Test("the same note in pure CommonMark keeps every extension as text")
    func commonMarkTurnsItAllOff() throws {
        let note = "| a |\n|---|\n| 1 |\n\n==hi== %%c%% #tag ~~x~~\n\n> [!note] T\n"
        let html = try FlavouredRenderer(flavour: .commonMark).render(Array(note.utf8)).html
        #expect(html == MarkdownRenderer.safe.html(from: note))
        #expect(html.contains("==hi== %%c%% #tag ~~x~~"))
    }

    @Test("==highlight== becomes <mark>, around markup too, never inside code")
    func highlights() throws {
        #expect(try Self.html("a ==b== c\n") == "<p>a <mark>b</mark> c</p>\n")
        #expect(try Self.html("==**bold** too==\n") == "<p><mark><strong>bold</strong> too</mark></p>\n")
        #expect(try Self.html("`==code==` a == b == c\n") == "<p><code>==code==</code> a == b == c</p>\n")
    }

    @Test("%%comments%% are left out, inline and across blocks; code keeps %%; an unpaired %% stays")
    func comments() throws {
        #expect(try Self.html("a %%hidden%% b\n") == "<p>a  b</p>\n")
        #expect(try Self.html("before\n\n%%\nsecret *one*\n\n- secret two\n%%\n\nafter\n") == "<p>before</p>\n<p>after</p>\n")
        #expect(try Self.html("`%%` 50%% kept\n") == "<p><code>%%</code> 50%% kept</p>\n")
        #expect(try Self.html("a %%[link](x.md) ![img](y.png) `code`%% b ![](z.png)\n") == "<p>a  b <img src=\"z.png\" alt=\"\" /></p>\n")
        #expect(try Self.html("%%![](z.png)%%\n\n%%\n```\ncode\n```\n%%\n") == "")
    }

    @Test("#tag and #nested/tag become links to the caller's tag page; numbers, headings and code are not tags")
    func tags() throws {
        let extensions = MarkdownExtensions(tagLinks: { "tags/\($0).html" })
        #expect(try Self.html("see #idea and #proj/alpha, not #1 or `#code` or a#b\n", extensions: extensions)
            == "<p>see <a class=\"tag\" href=\"tags/idea.html\">#idea</a> and <a class=\"tag\" href=\"tags/proj/alpha.html\">#proj/alpha</a>, not #1 or <code>#code</code> or a#b</p>\n")
        #expect(try Self.html("# Title\n\n#solo\n") == "<h1>Title</h1>\n<p><span class=\"tag\">#solo</span></p>\n")
        let rendered = try FlavouredRenderer().render(Array("#a #b #a #ünï\n".utf8))
        #expect(rendered.tags == ["a", "b", "ünï"])
    }

    @Test("callouts: type, title, foldable as <details>, an unknown type as a note, nested ones")
    func callouts() throws {
        #expect(try Self.html("> [!warning] Mind *this*\n> Body text\n")
            == "<div class=\"callout\" data-callout=\"warning\">\n<div class=\"callout-title\">Mind <em>this</em></div>\n"
            + "<div class=\"callout-content\">\n<p>Body text</p>\n</div>\n</div>\n")
        #expect(try Self.html("> [!faq]- Closed\n> Inside\n").hasPrefix("<details class=\"callout\" data-callout=\"question\">\n<summary class=\"callout-title\">Closed</summary>\n"))
        #expect(try Self.html("> [!tip]+\n> Open\n").hasPrefix("<details class=\"callout\" data-callout=\"tip\" open>\n<summary class=\"callout-title\">Tip</summary>\n"))
        #expect(try Self.html("> [!whatever] X\n").hasPrefix("<div class=\"callout\" data-callout=\"note\">\n<div class=\"callout-title\">X</div>\n"))
        let nested = try Self.html("> [!note] Outer\n> > [!bug] Inner\n> > deep\n")
        #expect(nested.contains("data-callout=\"bug\""))
        #expect(!nested.contains("[!"))
        #expect(try Self.html("> plain quote\n") == "<blockquote>\n<p>plain quote</p>\n</blockquote>\n")
    }

    @Test("fenced code keeps its language class for highlight.js; mermaid is a labelled code block")
    func codeBlocks() throws {
        #expect(try Self.html("```swift\nlet a = 1 < 2\n```\n") == "<pre><code class=\"language-swift\">let a = 1 &lt; 2\n</code></pre>\n")
        #expect(try Self.html("```mermaid\ngraph TD; A-->B[\"<script>x</script>\"]\n```\n")
            == "<figure class=\"mermaid\">\n<figcaption>Mermaid diagram (source)</figcaption>\n"
            + "<pre><code class=\"language-mermaid\">graph TD; A--&gt;B[&quot;&lt;script&gt;x&lt;/script&gt;&quot;]\n</code></pre>\n</figure>\n")
    }

    @Test("wiki links resolve in the default flavour too, labels with code spans included")
    func wikiLinks() throws {
        let extensions = MarkdownExtensions(wikiLinks: { "\($0.target).md" })
        #expect(try Self.html("[[Note]] and [[Funções#hasTag|`hasTag`]]\n", extensions: extensions)
            == "<p><a href=\"Note.md\">Note</a> and <a href=\"Fun%C3%A7%C3%B5es.md\"><code>hasTag</code></a></p>\n")
    }

    @Test("$…$ and $$…$$ keep their TeX exactly as written, escaped, for KaTeX; money and code are not math")
    func math() throws {
        #expect(try Self.html("Area $a_1 *b* \\{c\\}$ here\n") == "<p>Area <span class=\"math math-inline\">a_1 *b* \\{c\\}</span> here</p>\n")
        #expect(try Self.html("$$\n\\frac{a}{b} \\\\ c < d\n$$\n")
            == "<p><span class=\"math math-display\">\n\\frac{a}{b} \\\\ c &lt; d\n</span></p>\n")
        #expect(try Self.html("costs $5 and $10, `$x$`, \\$y$\n") == "<p>costs $5 and $10, <code>$x$</code>, $y$</p>\n")
        #expect(try Self.html("| $x$ |\n|---|\n| $y$ |\n").contains("<td>$y$</td>"))  // a cell holds no math element: the TeX stays
        #expect(try Self.html("$<script>alert(1)</script>$\n") == "<p><span class=\"math math-inline\">&lt;script&gt;alert(1)&lt;/script&gt;</span></p>\n")
    }

    /// Note text that tries to become markup, as an attacker would write it.
    static let payloads = [
        "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>", "javascript:alert(1)",
    ]

    @Test("script payloads stay text in table cells, callout titles, footnotes, highlights, tags, mermaid and links", arguments: payloads)
    func payloadsStayText(payload: String) throws {
        let note = """
            | \(payload) |
            |---|
            | \(payload) |

            > [!note] \(payload)
            > \(payload)

            Text[^1] ==\(payload)== #tag\(payload) [x](\(payload)) [[\(payload)]] $\(payload)$

            [^1]: \(payload)

            ```mermaid
            \(payload)
            ```

            """
        let extensions = MarkdownExtensions(wikiLinks: { _ in "javascript:alert(1)" }, tagLinks: { _ in "javascript:alert(1)" })
        let html = try Self.html(note, extensions: extensions)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<svg"))
        #expect(!html.contains("href=\"javascript"))
    }

    @Test("in a table cell, ==highlight== and #tag stay text, which the table extension would otherwise drop; inside emphasis they render")
    func tableCellsKeepTheirText() throws {
        let html = try Self.html("| a | b |\n|---|---|\n| ==1== x | #tag y |\n| *==2== #in* | z |\n")
        #expect(html.contains("<td>==1== x</td>\n<td>#tag y</td>"), "\(html)")
        #expect(html.contains("<td><em><mark>2</mark> <span class=\"tag\">#in</span></em></td>"), "\(html)")
    }
}
