import NotesTestSupport
import Testing
@testable import NotesCore

@Suite("The default flavour over a vault in several languages, right to left included")
struct FlavourVaultTests {
    private static let resolver = WikiLinkResolver(files: FlavourVaultFixture.files)

    private static func render(_ path: String) throws -> FlavouredRendering {
        try FlavouredRenderer().render(Array(try #require(FlavourVaultFixture.notes[path]).utf8), extensions: extensions(for: path))
    }

    private static func extensions(for path: String) -> MarkdownExtensions {
        MarkdownExtensions(wikiLinks: { resolver.destination(for: $0, from: path) }, headingIDs: true,
                           tagLinks: { "tags/\(WikiLinkResolver.percentEncode($0)).html" })
    }

    @Test("every note streamed to a writer gives the bytes, title, tags and warnings it renders to", arguments: FlavourVaultFixture.notes.keys.sorted())
    func streamedIsRendered(path: String) throws {
        let note = Array(try #require(FlavourVaultFixture.notes[path]).utf8)
        var streamed: [UInt8] = []
        var rendering = try FlavouredRenderer().render(note, extensions: Self.extensions(for: path)) { streamed += $0 }
        #expect(rendering.html.isEmpty, "the HTML went to the writer only")
        rendering.html = String(decoding: streamed, as: UTF8.self)
        #expect(rendering == (try Self.render(path)))
    }

    @Test("no note shows raw syntax of a construct the flavour handles", arguments: FlavourVaultFixture.notes.keys.sorted())
    func nothingRawRemains(path: String) throws {
        let html = try Self.render(path).html
        for raw in ["[[", "]]", "[!", "==", "%%", "- [ ]", "---", "title:", "|---"] {
            #expect(!html.contains(raw), "\(path) shows \(raw)")
        }
    }

    @Test("titles, tags and aliases come from front matter and text, in every script")
    func metadata() throws {
        let welcome = try Self.render("en/Welcome.md")
        #expect(welcome.title == "Welcome")
        #expect(welcome.tags == ["guide", "en/intro", "project/alpha"])
        #expect(welcome.frontMatter?.aliases == ["Start"])
        #expect(try Self.render("ja/ようこそ.md").tags == ["日本語", "タグ"])
        #expect(try Self.render("ar/مرحبا.md").title == "مرحبا")
        #expect(try Self.render("ar/مرحبا.md").tags == ["وسم"])
        #expect(try Self.render("he/שלום.md").tags == ["תגית"])
        #expect(try Self.render("he/שלום.md").title == "שלום")
    }

    @Test("every construct renders in the welcome note: callout, table, tasks, highlight, tag, footnote, autolink, math, code, mermaid, embed")
    func everyConstruct() throws {
        let html = try Self.render("en/Welcome.md").html
        for expected in [
            "<dl class=\"properties\">\n<dt>status</dt><dd>draft</dd>\n</dl>\n",
            "<h1 id=\"welcome\">Welcome</h1>",
            "<div class=\"callout\" data-callout=\"tip\">\n<div class=\"callout-title\">Read <em>this</em> first</div>",
            "<a href=\"../pt/Fun%C3%A7%C3%B5es.md#hastag\"><code>hasTag</code></a>",
            "<a href=\"../pt/Filtros.md\">filters</a>",
            "<th align=\"right\">Value</th>", "<del>1</del>",
            "<input type=\"checkbox\" checked=\"\" disabled=\"\" /> done",
            "<mark>Important</mark>", "<a class=\"tag\" href=\"tags/project%2Falpha.html\">#project/alpha</a>",
            "data-footnote-ref>1</a>", "<a href=\"http://www.example.com\">www.example.com</a>",
            "<span class=\"math math-inline\">e^{i\\pi} + 1 = 0</span>", "<span class=\"math math-display\">\n\\int_0^1 x\\,dx\n</span>",
            "<code class=\"language-swift\">", "<figure class=\"mermaid\">",
            "<img src=\"../attachments/diagrama.png\" alt=\"diagrama.png\" />",
        ] {
            #expect(html.contains(expected), "missing: \(expected)")
        }
        #expect(!html.contains("hidden note"))
    }

    @Test("right-to-left notes keep their text and link across scripts")
    func rightToLeft() throws {
        let arabic = try Self.render("ar/مرحبا.md").html
        #expect(arabic.contains("<div class=\"callout\" data-callout=\"info\">\n<div class=\"callout-title\">ملاحظة</div>"))
        #expect(arabic.contains("<mark>مهم</mark>"))
        #expect(arabic.contains("<a href=\"../pt/Filtros.md\">Filtros</a>"))
        #expect(arabic.contains("<td>أ</td>"))
        let hebrew = try Self.render("he/שלום.md").html
        #expect(hebrew.contains("<mark>מודגש</mark>"))
        #expect(!hebrew.contains("הערה"))
        #expect(hebrew.contains("<span class=\"math math-inline\">a^2</span>"))
        #expect(hebrew.contains("%E3%82%88%E3%81%86%E3%81%93%E3%81%9D.md"))
    }
}
