import Foundation
import NotesTestSupport
import Testing

/// `notes render` in the default flavour and with `--commonmark`: the real binary.
@Suite("notes render in the default flavour")
struct RenderFlavourTests {
    private static let note = "---\ntitle: From front matter\n---\n# Heading\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n==mark== #tag $x$\n"

    @Test("renders GFM and Obsidian syntax, titles a standalone page by the front matter; --commonmark is pure CommonMark")
    func rendersFlavour() async throws {
        let fragment = try await ProcessRunner.run(BuiltProducts.client, ["render", "-"], stdin: Self.note)
        #expect(fragment.exitCode == 0, "\(fragment.stderr)")
        #expect(fragment.stdout == "<h1>Heading</h1>\n<table>\n<thead>\n<tr>\n<th>a</th>\n<th align=\"right\">b</th>\n</tr>\n</thead>\n"
                + "<tbody>\n<tr>\n<td>1</td>\n<td align=\"right\">2</td>\n</tr>\n</tbody>\n</table>\n"
                + "<p><mark>mark</mark> <span class=\"tag\">#tag</span> <span class=\"math math-inline\">x</span></p>\n")

        let page = try await ProcessRunner.run(BuiltProducts.client, ["render", "--standalone", "-"], stdin: Self.note)
        #expect(page.stdout.contains("<title>From front matter</title>"))

        let pure = try await ProcessRunner.run(BuiltProducts.client, ["render", "--commonmark", "-"], stdin: Self.note)
        #expect(pure.stdout.hasPrefix("<hr />\n<h2>title: From front matter</h2>\n<h1>Heading</h1>\n<p>| a | b |"))
        #expect(pure.stdout.contains("<p>==mark== #tag $x$</p>"))
    }

    @Test("front matter that is not valid YAML shows as code, with a warning naming the file and line on stderr")
    func warnsOnInvalidFrontMatter() async throws {
        let work = try TemporaryDirectory("notes-render")
        defer { work.remove() }
        let file = work.appending("broken.md")
        try Data("---\na: 1\nb: [\n---\ntext\n".utf8).write(to: file)
        let result = try await ProcessRunner.run(BuiltProducts.client, ["render", file.path])
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix("<pre class=\"front-matter-invalid\"><code class=\"language-yaml\">a: 1\nb: [\n</code></pre>\n<p>text</p>"))
        #expect(result.stderr.contains("notes render: warning: \(file.path), line "), "\(result.stderr)")
    }

    @Test("in a folder, ![[Note]] embeds that note with its links written from the rendered file's folder")
    func embedsInFolder() async throws {
        let work = try TemporaryDirectory("notes-render")
        defer { work.remove() }
        let folder = work.appending("vault")
        try ExportFixture.write([
            ("Home.md", "![[sub/Part]]\n"),
            ("sub/Part.md", "Part with [[Other]] and [x](Other.md). ![[Home]]\n\n![[Home]]\n"),
            ("sub/Other.md", "# Other\n"),
        ], in: folder)
        let result = try await ProcessRunner.run(BuiltProducts.client, ["render", folder.appendingPathComponent("Home.md").path])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "<div class=\"note-embed\">\n<p><a href=\"sub/Part.md\">sub/Part</a></p>\n<div class=\"note-embed-content\">\n"
                + "<p>Part with <a href=\"sub/Other.md\">Other</a> and <a href=\"sub/Other.md\">x</a>. <a href=\"Home.md\">Home</a></p>\n"
                + "<p><a href=\"Home.md\">Home</a></p>\n</div>\n</div>\n", "\(result.stdout)")
    }
}
