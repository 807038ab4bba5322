import Foundation
import Testing
@testable import NotesCore

/// The files pages load to typeset math and highlight code: Debian's KaTeX and highlight.js as
/// installed here (scripts/install-deps installs them), and what a page without them gets.
@Suite("Page assets: KaTeX and highlight.js from Debian")
struct PageAssetsTests {
    @Test("KaTeX's script, stylesheet and every WOFF2 font its stylesheet names are read, under a folder named by their hash")
    func katexIsComplete() throws {
        let assets = PageAssets.installed
        #expect(assets.problems.isEmpty, "\(assets.problems)")
        let katex = try #require(assets.katex)
        let folder = try #require(katex.files.first?.name.split(separator: "/").first)
        #expect(folder.hasPrefix("katex.") && folder.count == "katex.".count + 12)
        #expect(katex.files.allSatisfy { $0.name.hasPrefix(folder + "/") })
        let stylesheet = try #require(katex.files.first { $0.name.hasSuffix("/katex.min.css") })
        #expect(stylesheet.mediaType == "text/css; charset=utf-8")
        let css = String(decoding: stylesheet.bytes, as: UTF8.self)
        let fonts = css.matches(of: /url\((fonts\/[A-Za-z0-9_-]+\.woff2)\)/).map { String($0.output.1) }
        #expect(fonts.count >= 15)
        for font in fonts {
            let file = assets.file(named: folder + "/" + font)
            #expect(file?.mediaType == "font/woff2", "\(font) is served beside the stylesheet")
        }
        #expect(katex.files.contains { $0.name == folder + "/katex.min.js" && $0.mediaType == "text/javascript; charset=utf-8" })
        #expect(try #require(assets.highlight).files.map(\.name).allSatisfy { $0.hasPrefix("highlight.") && $0.hasSuffix("/highlight.min.js") })
    }

    @Test("a page loads KaTeX only for math and highlight.js only for code with a language, Mermaid not counting")
    func pagesLoadOnlyWhatTheyShow() throws {
        let assets = PageAssets.installed
        let katex = try #require(assets.katex), highlight = try #require(assets.highlight)
        let math = PageAssets.Needs(bodyHTML: "<p><span class=\"math math-inline\">x^2</span></p>")
        let code = PageAssets.Needs(bodyHTML: "<pre><code class=\"language-swift\">let x = 1</code></pre>")
        let mermaid = PageAssets.Needs(bodyHTML: "<figure class=\"mermaid\"><pre><code class=\"language-mermaid\">graph TD</code></pre></figure>")
        #expect(math == .math && code == .code && mermaid.isEmpty)
        #expect(PageAssets.Needs(bodyHTML: "<p>plain <code>code</code></p>").isEmpty)
        let mathHead = assets.headHTML(for: math, href: "../assets/")
        #expect(mathHead == """
            <link rel="stylesheet" href="../assets/\(katex.files[1].name)">
            <script src="../assets/\(katex.files[0].name)" defer></script>
            <script src="../assets/\(assets.script.name)" defer></script>

            """)
        let codeHead = assets.headHTML(for: code, href: "/assets/")
        #expect(codeHead.contains(highlight.files[0].name) && !codeHead.contains("katex") && codeHead.hasSuffix("\(assets.script.name)\" defer></script>\n"))
        #expect(assets.headHTML(for: [], href: "/assets/").isEmpty)
    }

    @Test("without the packages nothing is loaded, math keeps its TeX, and each missing library is named once with its package")
    func missingPackagesDegrade() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("page-assets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let assets = PageAssets(javascriptRoot: empty.path)
        #expect(assets.katex == nil && assets.highlight == nil)
        #expect(assets.problems.count == 2)
        #expect(assets.problems[0].contains("libjs-katex") && assets.problems[0].contains("TeX source"))
        #expect(assets.problems[1].contains("libjs-highlight.js"))
        #expect(assets.headHTML(for: .all, href: "/assets/").isEmpty, "no script at all: the page shows TeX and plain code")
        #expect(assets.files == [assets.script])
    }

    @Test("our script typesets with KaTeX without trust, errors in place, bounded expansion, and leaves Mermaid alone")
    func scriptOptions() {
        let script = String(decoding: PageAssets.installed.script.bytes, as: UTF8.self)
        #expect(script.contains("throwOnError: false") && script.contains("trust: false") && script.contains("maxExpand: 1000"))
        #expect(script.contains("\"mermaid\"") && script.contains("pre code[class*=language-]"))
        #expect(PageAssets.installed.script.name.hasPrefix("notes-render.") && PageAssets.installed.script.name.hasSuffix(".js"))
    }
}
