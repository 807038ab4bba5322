import Foundation
import Testing
@testable import NotesCore

@Suite("Front matter: read with libyaml, never rendered as Markdown")
struct FrontMatterTests {
    private static func render(_ note: String, unsafe: Bool = false) throws -> FlavouredRendering {
        try FlavouredRenderer(allowsUnsafeHTML: unsafe).render(Array(note.utf8))
    }

    @Test("title, aliases and tags are read; other keys show as an escaped properties list; the YAML never renders as Markdown")
    func readsKeys() throws {
        let note = "---\ntitle: Hello\naliases: [Hi, Salut]\ntags: [x, \"#y/z\"]\nauthor: Ana\nrating: 5\n---\n# Heading\n\nBody #inline\n"
        let rendered = try Self.render(note)
        #expect(rendered.title == "Hello")
        #expect(rendered.frontMatter?.aliases == ["Hi", "Salut"])
        #expect(rendered.frontMatter?.tags == ["x", "y/z"])
        #expect(rendered.tags == ["x", "y/z", "inline"])
        #expect(rendered.frontMatter?.properties.map(\.key) == ["author", "rating"])
        #expect(rendered.html.hasPrefix("<dl class=\"properties\">\n<dt>author</dt><dd>Ana</dd>\n<dt>rating</dt><dd>5</dd>\n</dl>\n<h1>Heading</h1>\n"))
        #expect(!rendered.html.contains("<hr"))
        #expect(!rendered.html.contains("title:"))
        #expect(rendered.warnings.isEmpty)
    }

    @Test("without a title key the first heading titles the page; a closing ... and CRLF lines work; tags may be one string")
    func fallbacksAndSpellings() throws {
        let rendered = try Self.render("---\r\ntags: a, b c\r\n...\r\n## First *one*\r\n")
        #expect(rendered.title == "First one")
        #expect(rendered.frontMatter?.tags == ["a", "b", "c"])
        #expect(rendered.html == "<h2>First <em>one</em></h2>\n")
        #expect(try Self.render("no front matter\n").title(orFileName: "Plain note.md") == "Plain note")
    }

    @Test("a --- block that is not the first line, or never closes, is Markdown as CommonMark reads it")
    func onlyALeadingClosedBlock() throws {
        #expect(try Self.render("\n---\na: b\n---\n").frontMatter == nil)
        #expect(try Self.render("---\na: b\n").frontMatter == nil)
        #expect(try Self.render("---\na: b\n").html == "<hr />\n<p>a: b</p>\n")
    }

    @Test("invalid YAML shows as a code block with a warning naming the line; nothing is dropped")
    func invalidYAMLIsShownAsCode() throws {
        let rendered = try Self.render("---\ntitle: [unclosed\nkey: <b>x</b>\n---\nBody\n")
        #expect(rendered.frontMatter?.error != nil)
        #expect(rendered.title == nil)
        #expect(rendered.html == "<pre class=\"front-matter-invalid\"><code class=\"language-yaml\">title: [unclosed\nkey: &lt;b&gt;x&lt;/b&gt;\n</code></pre>\n<p>Body</p>\n")
        #expect(rendered.warnings.count == 1)
        #expect(rendered.warnings.first?.contains("line") == true)
        #expect(try Self.render("---\n- a list\n---\n").warnings.first?.contains("mapping") == true)
    }

    @Test("script payloads in keys and values are escaped, in safe and unsafe mode", arguments: [false, true])
    func payloadsAreEscaped(unsafe: Bool) throws {
        let payload = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>"
        let quoted = "'" + payload.replacingOccurrences(of: "'", with: "''") + "'"  // YAML's single quotes
        let note = "---\ntitle: \(quoted)\n\(quoted): \(quoted)\nlist: [\(quoted)]\n---\n"
        let rendered = try Self.render(note, unsafe: unsafe)
        #expect(rendered.title == payload)  // plain text: HTMLPage escapes it
        #expect(!rendered.html.contains("<script"))
        #expect(!rendered.html.contains("<img"))
        #expect(rendered.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;"))
    }

    @Test("aliases that multiply (a billion laughs) stop at the node bound instead of expanding")
    func aliasBombIsBounded() throws {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        var previous = "a"
        for level in "bcdefghij" {
            yaml += "\(level): &\(level) [*\(previous), *\(previous), *\(previous), *\(previous), *\(previous), *\(previous), *\(previous), *\(previous), *\(previous), *\(previous)]\n"
            previous = String(level)
        }
        let rendered = try Self.render("---\n\(yaml)---\nok\n")
        #expect(rendered.frontMatter?.error?.message.contains("more than") == true)
        #expect(rendered.html.hasSuffix("<p>ok</p>\n"))
    }

    @Test("nesting deeper than the bound is refused, not recursed into")
    func depthIsBounded() throws {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let rendered = try Self.render("---\nk: \(deep)\n---\n")
        #expect(rendered.frontMatter?.error?.message.contains("nested") == true)
        let big = try Self.render("---\nk: \(String(repeating: "x", count: FrontMatter.maximumBytes + 1))\n---\n")
        #expect(big.frontMatter?.error != nil)
    }

    @Test("pure CommonMark reads front matter as Markdown, as the spec does")
    func commonMarkKeepsItMarkdown() throws {
        let rendered = try FlavouredRenderer(flavour: .commonMark).render(Array("---\ntitle: x\n---\n".utf8))
        #expect(rendered.html == "<hr />\n<h2>title: x</h2>\n")
        #expect(rendered.frontMatter == nil)
    }
}
