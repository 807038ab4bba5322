import Testing
@testable import NotesCore

@Suite("Wiki links: syntax, resolution, rendering")
struct WikiLinkTests {
    @Test("[[...]] forms are found in text; broken or empty brackets stay text")
    func findsLinksInText() {
        #expect(WikiLinkSyntax.pieces(of: "See [[Note]] and [[sub/Note#Part|the part]]!") == [
            .text("See "), .link(WikiLink(target: "Note")), .text(" and "),
            .link(WikiLink(target: "sub/Note", heading: "Part", label: "the part")), .text("!"),
        ])
        #expect(WikiLinkSyntax.pieces(of: "![[img.png]]x") == [.link(WikiLink(target: "img.png", isEmbed: true)), .text("x")])
        #expect(WikiLinkSyntax.pieces(of: "[[#Top]]") == [.link(WikiLink(target: "", heading: "Top"))])
        for plain in ["[[]]", "[[a]", "[[a [b]]", "a ]] [[", "[[|x]]"] {
            #expect(WikiLinkSyntax.pieces(of: plain) == [.text(plain)], "\(plain)")
        }
        #expect(WikiLinkSyntax.pieces(of: "[[ [[x]]") == [.text("[[ "), .link(WikiLink(target: "x"))])
    }

    private static let folder = WikiLinkResolver(files: [
        "Note.md", "archive/Note.md", "archive/old/Note.md", "sub/Deep.md", "a/Twin.md", "b/Twin.md",
        "img/pic.png", "docs/Manual v2.pdf", "Été.md",
    ])

    @Test("resolution by file name, .md implied, the shortest path winning, case and normalisation ignored", arguments: [
        ("Note", "index.md", "Note.md"),
        ("note.md", "index.md", "Note.md"),
        ("archive/Note", "index.md", "archive/Note.md"),
        ("old/Note", "sub/x.md", "../archive/old/Note.md"),
        ("Deep", "sub/x.md", "Deep.md"),
        ("pic.png", "sub/x.md", "../img/pic.png"),
        ("Manual v2.pdf", "index.md", "docs/Manual%20v2.pdf"),
        ("Twin", "b/x.md", "Twin.md"),
        ("Twin", "index.md", "a/Twin.md"),
        ("E\u{301}te\u{301}", "index.md", "%C3%89t%C3%A9.md"),
    ])
    func resolves(target: String, note: String, expected: String) {
        #expect(Self.folder.destination(for: WikiLink(target: target), from: note) == expected)
    }

    @Test("a heading becomes the heading's id; a block reference is dropped; unknown names and escapes resolve to nothing")
    func headingsAndFailures() {
        #expect(Self.folder.destination(for: WikiLink(target: "Deep", heading: "My Big Heading"), from: "x.md") == "sub/Deep.md#my-big-heading")
        #expect(Self.folder.destination(for: WikiLink(target: "", heading: "Here"), from: "x.md") == "#here")
        #expect(Self.folder.destination(for: WikiLink(target: "Deep", heading: "^abc123"), from: "x.md") == "sub/Deep.md")
        for target in ["Missing", "../Note", "sub/../Note", "/Deep", "chive/Note"] {
            #expect(Self.folder.destination(for: WikiLink(target: target), from: "x.md") == nil, "\(target)")
        }
        #expect(Self.folder.destination(for: WikiLink(target: "/sub/Deep"), from: "x.md") == "sub/Deep.md")
    }

    private static func render(_ markdown: String, renderer: MarkdownRenderer = .safe,
                               resolve: @escaping (WikiLink) -> String? = { folder.destination(for: $0, from: "index.md") }) -> String {
        renderer.render(Array(markdown.utf8), extensions: MarkdownExtensions(wikiLinks: resolve)).html
    }

    @Test("links and embeds become link and image nodes; code spans, code blocks and link text are left alone")
    func rendersLinksAndEmbeds() {
        #expect(Self.render("[[Note]], [[Deep|deep one]], ![[pic.png|200]], ![[Manual v2.pdf]]\n")
            == "<p><a href=\"Note.md\">Note</a>, <a href=\"sub/Deep.md\">deep one</a>, <img src=\"img/pic.png\" alt=\"pic.png\" />, "
            + "<a href=\"docs/Manual%20v2.pdf\">Manual v2.pdf</a></p>\n")
        #expect(Self.render("`[[Note]]` [see [[Note]]](x.md)\n\n    [[Note]]\n\n```\n![[pic.png]]\n```\n")
            == "<p><code>[[Note]]</code> <a href=\"x.md\">see [[Note]]</a></p>\n<pre><code>[[Note]]\n</code></pre>\n"
            + "<pre><code>![[pic.png]]\n</code></pre>\n")
    }

    @Test("an unresolved link is its plain text, never raw [[...]]")
    func unresolvedIsPlainText() {
        #expect(Self.render("a [[Missing]] b [[Missing|shown]] c ![[gone.png]] [[Deep#Part]]\n", resolve: { _ in nil })
            == "<p>a Missing b shown c gone.png Deep &gt; Part</p>\n")
    }

    @Test("labels are escaped and a resolver's javascript: destination renders as text in safe mode")
    func staysSafe() {
        #expect(Self.render("[[Note|a &lt;script&gt; &quot;b]]\n") == "<p><a href=\"Note.md\">a &lt;script&gt; &quot;b</a></p>\n")
        #expect(Self.render("[[Note|<script>x</script>]]\n") == "<p>[[Note|<!-- raw HTML omitted -->x<!-- raw HTML omitted -->]]</p>\n")
        #expect(Self.render("[[Note|click]] ![[x.png]]\n", resolve: { _ in "javascript:alert(1)" }) == "<p>click x.png</p>\n")
    }

    @Test("without a resolver (CommonMark), [[...]] stays text exactly as cmark reads it")
    func commonMarkLeavesText() {
        let markdown = "[[Note]] ![[pic.png]]\n"
        #expect(MarkdownRenderer.safe.render(Array(markdown.utf8)).html == "<p>[[Note]] ![[pic.png]]</p>\n")
        #expect(MarkdownRenderer.safe.html(from: markdown) == "<p>[[Note]] ![[pic.png]]</p>\n")
    }

    @Test("headings get GitHub-style ids, repeats numbered, markup kept inside, in safe and unsafe mode")
    func headingIDs() {
        let markdown = "# Hello, *World*!\n\n## Hello World\n\nHello world\n---\n\n### `code` & Ünïcode 2\n\n#\n"
        let expected = "<h1 id=\"hello-world\">Hello, <em>World</em>!</h1>\n<h2 id=\"hello-world-1\">Hello World</h2>\n"
            + "<h2 id=\"hello-world-2\">Hello world</h2>\n<h3 id=\"code--ünïcode-2\"><code>code</code> &amp; Ünïcode 2</h3>\n"
            + "<h1 id=\"section\"></h1>\n"
        for renderer in [MarkdownRenderer.safe, MarkdownRenderer(allowsUnsafeHTML: true)] {
            #expect(renderer.render(Array(markdown.utf8), extensions: MarkdownExtensions(headingIDs: true)).html == expected)
        }
        var slugger = HeadingSlugger()
        #expect(["a", "a", "a-1", "a"].map { slugger.slug(for: $0) } == ["a", "a-1", "a-1-1", "a-2"])
    }

    @Test("a link with a refused scheme renders as its text; safe images and links are kept", arguments: [
        ("[x](javascript:alert(1))", "<p>x</p>\n"),
        ("[*x*](JavaScript:go)", "<p><em>x</em></p>\n"),
        ("[x](vbscript:msgbox)", "<p>x</p>\n"),
        ("[x](file:///etc/passwd)", "<p>x</p>\n"),
        ("[x](data:text/html;base64,PHNjcmlwdD4=)", "<p>x</p>\n"),
        ("<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n"),
        ("[x](data:image/png;base64,AA==)", "<p><a href=\"data:image/png;base64,AA==\">x</a></p>\n"),
        ("[x](https://e.example)", "<p><a href=\"https://e.example\">x</a></p>\n"),
        // Safe rendering skips the walk for refused links when cmark's HTML shows none (`<a href=""`).
        ("[x](javascript:go \"title\")", "<p>x</p>\n"),
        ("[x]()", "<p><a href=\"\">x</a></p>\n"),
        ("[x]() [y](file:a) `<a href=\"\"`", "<p><a href=\"\">x</a> y <code>&lt;a href=&quot;&quot;</code></p>\n"),
    ])
    func refusedLinksAreText(markdown: String, expected: String) {
        #expect(MarkdownRenderer.safe.html(from: markdown) == expected)
        #expect(MarkdownRenderer.safe.render(Array(markdown.utf8)).html == expected)
    }

    private static let vault = WikiLinkResolver(files: ["Funções.md", "Filtros.md", "attachments/bases-noshadow.png", "index.md"])

    private static func renderInVault(_ markdown: String) -> String {
        MarkdownRenderer.safe.render(Array(markdown.utf8), extensions: MarkdownExtensions(wikiLinks: { vault.destination(for: $0, from: "index.md") })).html
    }

    @Test("a label holding a code span or emphasis is one link whose label keeps the markup")
    func labelWithCodeSpan() {
        #expect(Self.renderInVault("See [[Funções#hasTag|`hasTag`]] and [[Filtros|the *filters* page]].\n")
            == "<p>See <a href=\"Fun%C3%A7%C3%B5es.md#hastag\"><code>hasTag</code></a> and <a href=\"Filtros.md\">the <em>filters</em> page</a>.</p>\n")
        #expect(Self.renderInVault("[[Missing|`code` label]] after\n") == "<p><code>code</code> label after</p>\n")
        #expect(Self.renderInVault("a [[x|`y`] b]] `z`\n") == "<p>a [[x|<code>y</code>] b]] <code>z</code></p>\n")
    }

    @Test("an empty heading or label is ignored: [[Filtros#|wikilink]] and [[Funções#hasTag|]] resolve")
    func emptyHeadingOrLabel() {
        #expect(Self.renderInVault("[[Filtros#|wikilink]] [[Funções#hasTag|]]\n")
            == "<p><a href=\"Filtros.md\">wikilink</a> <a href=\"Fun%C3%A7%C3%B5es.md#hastag\">Funções &gt; hasTag</a></p>\n")
    }

    @Test("an image embed with a fragment shows the image: the fragment is not part of the file")
    func imageEmbedWithFragment() {
        #expect(Self.renderInVault("![[bases-noshadow.png#interface]]\n")
            == "<p><img src=\"attachments/bases-noshadow.png\" alt=\"bases-noshadow.png\" /></p>\n")
        #expect(Self.vault.destination(for: WikiLink(target: "bases-noshadow.png", heading: "interface", isEmbed: true), from: "index.md")
            == "attachments/bases-noshadow.png")
    }
}
