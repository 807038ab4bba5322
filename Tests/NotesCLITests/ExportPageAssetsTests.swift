import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Export copies KaTeX and highlight.js into the site for the pages that show math or code,
/// which load them by relative address: the site needs no network and works from `file://`.
@Suite("notes export --html: typesetting files")
struct ExportPageAssetsTests {
    @Test("a page with highlighted code loads highlight.js from assets/ by a relative address, copied there byte for byte; a plain page loads nothing")
    func codePagesLoadCopiedAssets() async throws {
        let work = try TemporaryDirectory("notes-export-assets")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([("deep/er/code.md", "# Code\n\n```swift\nlet x = 1\n```\n"), ("plain.md", "# Plain\n\nwords\n")], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let assets = PageAssets.installed
        let highlight = try #require(assets.highlight?.files.first)
        let tree = try ExportFixture.tree(output)
        #expect(tree["assets/" + highlight.name] == Data(highlight.bytes))
        #expect(tree["assets/" + assets.script.name] == Data(assets.script.bytes))
        #expect(!tree.keys.contains { $0.hasPrefix("assets/katex.") }, "no page shows math: KaTeX is not copied")
        let code = ExportFixture.text("deep/er/code.html", in: output)
        #expect(code.contains("<script src=\"../../assets/\(highlight.name)\" defer></script>"))
        #expect(code.contains("<script src=\"../../assets/\(assets.script.name)\" defer></script>"))
        #expect(code.contains("content=\"script-src 'self'; object-src 'none'; base-uri 'none'\""), "only the site's own scripts")
        let plain = ExportFixture.text("plain.html", in: output)
        #expect(!plain.contains("<script") && plain.contains("script-src 'none'"))
    }

    @Test("a page with math loads KaTeX's stylesheet and script and every font the stylesheet names is copied beside it")
    func mathPagesLoadKaTeX() throws {
        let assets = PageAssets.installed
        let katex = try #require(assets.katex)
        let page = HTMLPage(title: "M", bodyHTML: "<p><span class=\"math math-inline\">x^2</span></p>\n", stylesheet: .linked(href: "style.css"),
                            assets: assets, assetsHref: "assets/").render()
        #expect(page.contains("<link rel=\"stylesheet\" href=\"assets/\(katex.files[1].name)\">"))
        #expect(page.contains("<script src=\"assets/\(katex.files[0].name)\" defer></script>"))
        #expect(!page.contains(try #require(assets.highlight?.files.first?.name)))
        let copied = Set(assets.files(for: .math).map(\.name))
        #expect(copied.isSuperset(of: katex.files.map(\.name)) && copied.contains(assets.script.name))
        #expect(HTMLPage(title: "M", bodyHTML: "<p>x</p>\n", assets: assets).render() == HTMLPage(title: "M", bodyHTML: "<p>x</p>\n").render())
    }
}
