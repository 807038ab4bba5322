import Foundation
import NotesTestSupport
import Testing

/// `notes export --html` in the default flavour (GFM and what Obsidian users write) and with
/// `--commonmark`: the real binary on real folders.
@Suite("notes export in the default flavour")
struct ExportFlavourTests {
    @Test("front matter becomes the title and a properties list, tables and callouts render; --commonmark leaves it all as text")
    func rendersDefaultFlavour() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site"), plain = work.appending("plain")
        try ExportFixture.write([
            ("guide.md", "---\ntitle: The guide\naliases: [Handbook]\nstatus: draft\n---\n# A heading\n\n"
                + "| Left | Right |\n|:-----|------:|\n| a | ~~b~~ |\n\n> [!note] Remember\n> this\n\n- [x] done\n\nText[^1].\n\n[^1]: A footnote.\n"),
            ("plain.md", "No heading, no front matter.\n"),
        ], in: source)

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let guide = ExportFixture.text("guide.html", in: output)
        #expect(guide.contains("<title>The guide</title>"))
        #expect(guide.contains("<dl class=\"properties\">\n<dt>status</dt><dd>draft</dd>\n</dl>"))
        #expect(!guide.contains("title:") && !guide.contains("aliases") && !guide.contains("<hr />"))
        #expect(guide.contains("<h1 id=\"a-heading\">A heading</h1>"))
        #expect(guide.contains("<th align=\"right\">Right</th>") && guide.contains("<td align=\"right\"><del>b</del></td>"))
        #expect(guide.contains("<div class=\"callout\" data-callout=\"note\">\n<div class=\"callout-title\">Remember</div>"))
        #expect(guide.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> done"))
        #expect(guide.contains("data-footnote-ref>1</a>") && guide.contains("A footnote."))
        #expect(ExportFixture.text("plain.html", in: output).contains("<title>plain</title>"))
        #expect(ExportFixture.text("index.html", in: output).contains("<a href=\"guide.html\">The guide</a>"))

        let commonMark = try await ExportFixture.export(source, to: plain, ["--commonmark"])
        #expect(commonMark.exitCode == 0, "\(commonMark.stderr)")
        let pure = ExportFixture.text("guide.html", in: plain)
        #expect(pure.contains("<hr />\n<h2 id=\"title-the-guide-aliases-handbook-status-draft\">title: The guide"), "pure CommonMark reads front matter as a rule and a heading")
        #expect(pure.contains("| Left | Right |") && pure.contains("[!note] Remember"))
        #expect(pure.contains("<li>[x] done</li>") && !pure.contains("<table>") && !pure.contains("callout"))
    }

    @Test("front matter that is not valid YAML shows as code with a warning naming the note and line; the page is written")
    func warnsOnInvalidFrontMatter() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([("sub/broken.md", "---\ntitle: ok\nkey: [unclosed\n---\n# Body\n")], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stderr.contains("notes export: warning: sub/broken.md, line "), "\(result.stderr)")
        #expect(result.stderr.contains("front matter is not valid YAML"))
        let page = ExportFixture.text("sub/broken.html", in: output)
        #expect(page.contains("<pre class=\"front-matter-invalid\"><code class=\"language-yaml\">title: ok\nkey: [unclosed\n</code></pre>"))
        #expect(page.contains("<h1 id=\"body\">Body</h1>") && page.contains("<title>Body</title>"))
    }

    @Test("each tag gets a page listing its notes (nested tags under their parent), the index lists tags, #tag links lead there")
    func writesTagPages() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([
            ("a.md", "---\ntags: [project]\n---\n# Alpha\n\nAbout #project/alpha and #Idea.\n"),
            ("sub/b.md", "# Beta\n\nAn #idea, `#not-a-tag` and #1.\n"),
            ("evil.md", "---\ntags: [\"<script>alert(1)</script>\", ../../escape]\n---\nx\n"),
        ], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let a = ExportFixture.text("a.html", in: output)
        #expect(a.contains("<a class=\"tag\" href=\"tags/project/alpha.html\">#project/alpha</a>"))
        #expect(a.contains("<a class=\"tag\" href=\"tags/idea.html\">#Idea</a>"))
        #expect(ExportFixture.text("sub/b.html", in: output).contains("<a class=\"tag\" href=\"../tags/idea.html\">#idea</a>"))
        #expect(ExportFixture.text("sub/b.html", in: output).contains("<code>#not-a-tag</code> and #1."))

        let idea = ExportFixture.text("tags/idea.html", in: output)
        #expect(idea.contains("<title>#Idea</title>"))
        #expect(idea.contains("<li><a href=\"../a.html\">Alpha</a>") && idea.contains("<li><a href=\"../sub/b.html\">Beta</a>"))
        // `#project` (from front matter) lists the note tagged `#project/alpha` too.
        #expect(ExportFixture.text("tags/project.html", in: output).contains("<a href=\"../a.html\">Alpha</a>"))
        #expect(ExportFixture.text("tags/project/alpha.html", in: output).contains("<a href=\"../../a.html\">Alpha</a>"))

        let index = ExportFixture.text("index.html", in: output)
        #expect(index.contains("<h2 id=\"tag-list\">Tags</h2>"))
        #expect(index.contains("<li><a class=\"tag\" href=\"tags/idea.html\">#Idea</a> (2)</li>"))
        // A tag from front matter is any text: escaped on every page, its file inside tags/.
        let files = try ExportFixture.tree(output).keys
        #expect(files.allSatisfy { !$0.contains("..") && !$0.contains("<") }, "\(files.sorted())")
        #expect(files.contains("tags/%2E%2E/%2E%2E/escape.html"))
        #expect(files.contains("tags/%3Cscript%3Ealert%281%29%3C/script%3E.html"))
        for (path, bytes) in try ExportFixture.tree(output) where path.hasSuffix(".html") {
            #expect(!String(decoding: bytes, as: UTF8.self).contains("<script"), "\(path)")
        }
    }

    @Test("the three wiki links a real vault broke resolve: a code span label, an empty heading or label, an image embed with a fragment")
    func resolvesTheThreeFailingKinds() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([
            ("docs/Uso.md", "# Uso\n\nSee [[Funções#hasTag|`hasTag`]], [[Filtros#|wikilink]] and [[Funções#hasTag|]].\n\n"
                + "![[bases-noshadow.png#interface]]\n"),
            ("docs/Funções.md", "# Funções\n\n## hasTag\n"),
            ("docs/Filtros.md", "# Filtros\n"),
        ], in: source)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: source.appendingPathComponent("docs/bases-noshadow.png"))
        let result = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let page = ExportFixture.text("docs/Uso.html", in: output)
        #expect(page.contains("See <a href=\"Fun%C3%A7%C3%B5es.html#hastag\"><code>hasTag</code></a>, "
                              + "<a href=\"Filtros.html\">wikilink</a> and <a href=\"Fun%C3%A7%C3%B5es.html#hastag\">Funções &gt; hasTag</a>."), "\(page)")
        #expect(page.contains("<img src=\"bases-noshadow.png\" alt=\"bases-noshadow.png\" />"))
        #expect(!page.contains("[["))
        #expect(FileManager.default.contents(atPath: output.appendingPathComponent("docs/bases-noshadow.png").path) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("![[Note]] and ![[Note#Heading]] embed the note with its links leading from the page; a cycle is a link")
    func embedsNotes() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([
            ("Home.md", "# Home\n\n![[Part]]\n\n![[Part#Second]]\n"),
            ("deep/Part.md", "---\nkey: value\n---\n# First\n\nSee [[Home]], [other](Other.md) and #tagged.\n\n![[pic.png]]\n\n"
                + "## Second\n\nOnly this. ![[Home]] inline.\n\n![[Home]]\n"),
            ("deep/Other.md", "# Other\n"),
        ], in: source)
        try Data([1, 2, 3]).write(to: source.appendingPathComponent("deep/pic.png"))
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let home = ExportFixture.text("Home.html", in: output)
        #expect(home.contains("<div class=\"note-embed\">\n<p><a href=\"deep/Part.html\">Part</a></p>\n<div class=\"note-embed-content\">\n<h1>First</h1>"), "\(home)")
        #expect(home.contains("See <a href=\"Home.html\">Home</a>, <a href=\"deep/Other.html\">other</a> and "
                              + "<a class=\"tag\" href=\"tags/tagged.html\">#tagged</a>."))
        #expect(home.contains("<img src=\"deep/pic.png\" alt=\"pic.png\" />"))
        #expect(home.contains("<a href=\"deep/Part.html#second\">Part &gt; Second</a></p>\n<div class=\"note-embed-content\">\n<h2>Second</h2>"))
        // Home embeds Part, which embeds Home: a link, not a loop.
        #expect(home.contains("<p><a href=\"Home.html\">Home</a></p>\n</div>"))
        #expect(!home.contains("key") && !home.contains("[["))
        #expect(FileManager.default.contents(atPath: output.appendingPathComponent("deep/pic.png").path) == Data([1, 2, 3]))
        // The embedded note's own page is there too, with its own links.
        #expect(ExportFixture.text("deep/Part.html", in: output).contains("See <a href=\"../Home.html\">Home</a>, <a href=\"Other.html\">other</a>"))
    }

    @Test("a vault in seven languages, right to left included, exports every construct rendered: no raw syntax, titles right")
    func exportsMultilingualVault() async throws {
        let work = try TemporaryDirectory("notes-flavour")
        defer { work.remove() }
        let source = work.appending("vault"), output = work.appending("site")
        try ExportFixture.write(FlavourVaultFixture.notes.sorted { $0.key < $1.key }, in: source)
        let image = source.appendingPathComponent(FlavourVaultFixture.image)
        try FileManager.default.createDirectory(at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: image)
        let result = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(result.exitCode == 0, "\(result.stderr)")

        for path in FlavourVaultFixture.notes.keys.sorted() {
            let page = ExportFixture.text(String(path.dropLast(3)) + ".html", in: output)
            let body = String(page[(page.range(of: "<main>")?.upperBound ?? page.startIndex)...])
            for raw in ["[[", "]]", "[!", "==", "%%", "[ ]", "[x]", "---", "title:", "tags:", "|---", "| "] {
                #expect(!body.contains(raw), "\(path) shows \(raw)")
            }
        }
        let titles = ["en/Welcome.html": "Welcome", "pt/Funções.html": "Funções", "ja/ようこそ.html": "ようこそ",
                      "ar/مرحبا.html": "مرحبا", "he/שלום.html": "שלום", "ru/Привет.html": "Привет", "pt/Filtros.html": "Filtros"]
        for (page, title) in titles {
            #expect(ExportFixture.text(page, in: output).contains("<title>\(title)</title>"), "\(page)")
        }
        let welcome = ExportFixture.text("en/Welcome.html", in: output)
        #expect(welcome.contains("<table>") && welcome.contains("<div class=\"callout\" data-callout=\"tip\">"))
        #expect(welcome.contains("<a href=\"../pt/Fun%C3%A7%C3%B5es.html#hastag\"><code>hasTag</code></a>"))
        #expect(welcome.contains("<img src=\"../attachments/diagrama.png\" alt=\"diagrama.png\" />"))
        let arabic = ExportFixture.text("ar/مرحبا.html", in: output)
        #expect(arabic.contains("<td>أ</td>") && arabic.contains("<div class=\"callout\" data-callout=\"info\">"))
        #expect(arabic.contains("<a class=\"tag\" href=\"../tags/%D9%88%D8%B3%D9%85.html\">#وسم</a>"))
        let russian = ExportFixture.text("ru/Привет.html", in: output)
        #expect(russian.contains("<details class=\"callout\" data-callout=\"question\" open>"))
        #expect(russian.contains("<dt>автор</dt><dd>Иван</dd>"))
        #expect(russian.contains("<div class=\"note-embed-content\">\n<h2>hasTag</h2>"), "\(russian)")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("tags/русский.html").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("tags/日本語.html").path))
    }
}
