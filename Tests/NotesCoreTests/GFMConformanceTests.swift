import Testing
@testable import NotesCore

/// The default flavour against GitHub's own suites: every extension example of the GFM spec
/// 0.29 and every case of cmark-gfm's `extensions.txt`, rendered as a note is (front matter,
/// Obsidian constructs and all), with raw HTML allowed as the suites assume.
@Suite("GFM conformance of the default flavour")
struct GFMConformanceTests {
    /// Examples where the default flavour deliberately renders otherwise than GitHub, by file
    /// and number, with the reason. Nothing else may differ.
    static let deliberateDifferences: [String: String] = [
        "extensions.txt 23": """
            footnotes: Debian's cmark-gfm 0.29.0.gfm.6 writes GitHub's newer footnote markup (ids fn-1 and fnref-1, \
            data-footnotes, an aria-label on the back link) where this copy of extensions.txt shows the older one; \
            `footnotesInTheLibrarysMarkup` checks the same example's structure
            """,
    ]

    private static func render(_ markdown: String, unsafe: Bool = true) throws -> String {
        try FlavouredRenderer(allowsUnsafeHTML: unsafe).render(Array(markdown.utf8)).html
    }

    private static func failing(_ examples: [GFMExample]) throws -> [String] {
        var failing: [String] = []
        for example in examples where Self.deliberateDifferences["\(example.file) \(example.number)"] == nil {
            let rendered = try render(example.markdown)
            // `<IGNORE>`: a case that only must not crash, whatever it renders.
            if example.html == "<IGNORE>\n" { continue }
            if HTMLNormaliser.normalise(rendered) != HTMLNormaliser.normalise(example.html) { failing.append(example.testDescription) }
        }
        return failing
    }

    @Test("every extension example of the GFM spec (table, strikethrough, autolink, tagfilter, task list) passes",
          .enabled(if: GFMSpec.shouldRun, GFMSpec.skipReason))
    func specExtensionExamples() throws {
        let examples = try GFMSpec.examples(in: "spec.txt").filter { !$0.kind.isEmpty }
        // 8 table, 2 strikethrough, 11 autolink, 1 tagfilter, and the 2 task-list examples the spec marks `disabled`.
        try #require(examples.count == 24, "spec.txt should hold 24 extension examples")
        let failing = try Self.failing(examples)
        #expect(failing.isEmpty, "\(failing)")
    }

    @Test("every case of cmark-gfm's extensions.txt passes (tables, strikethrough, autolinks, tag filter, footnotes, task lists)",
          .enabled(if: GFMSpec.shouldRun, GFMSpec.skipReason))
    func extensionsCases() throws {
        let examples = try GFMSpec.examples(in: "extensions.txt")
        try #require(examples.count == 28)
        let failing = try Self.failing(examples)
        #expect(failing.isEmpty, "\(failing)")
    }

    @Test("in safe mode, extension examples differ from GitHub's only where raw HTML is omitted or an unsafe link unlinked",
          .enabled(if: GFMSpec.shouldRun, GFMSpec.skipReason))
    func safeModeOnlyOmits() throws {
        let examples = try GFMSpec.examples(in: "spec.txt").filter { !$0.kind.isEmpty } + GFMSpec.examples(in: "extensions.txt")
        var failing: [String] = []
        // The tag filter rewrites raw HTML, which safe mode omits whole: those examples are checked apart.
        for example in examples where Self.deliberateDifferences["\(example.file) \(example.number)"] == nil && !example.isTagFilter {
            let safe = HTMLNormaliser.normalise(try Self.render(example.markdown, unsafe: false))
            if example.html == "<IGNORE>\n" { continue }
            let expected = HTMLNormaliser.normalise(example.html)
            if safe != expected, try !SafeModeDifference.explains(safe: safe, expected: expected) { failing.append(example.testDescription) }
        }
        #expect(failing.isEmpty, "\(failing)")
        for example in examples where example.isTagFilter {
            let safe = try Self.render(example.markdown, unsafe: false)
            #expect(!safe.contains("<title") && !safe.contains("<xmp") && !safe.contains("<script") && !safe.contains("<style"), "\(example.testDescription)")
            #expect(safe.contains("<!-- raw HTML omitted -->"), "\(example.testDescription)")
        }
        let payload = try Self.render("<script>alert(1)</script>\n\n| <img src=x onerror=alert(1)> |\n|---|\n", unsafe: false)
        #expect(!payload.contains("<script"))
        #expect(!payload.contains("<img"))
    }

    @Test("the footnote example of extensions.txt renders every reference, definition and back link, in the library's markup",
          .enabled(if: GFMSpec.shouldRun, GFMSpec.skipReason))
    func footnotesInTheLibrarysMarkup() throws {
        let example = try #require(GFMSpec.examples(in: "extensions.txt").first { $0.number == 23 })
        let html = try Self.render(example.markdown)
        for (number, label) in ["1", "footnote", "other-note", "codeblock-note"].enumerated() {
            #expect(html.contains("<sup class=\"footnote-ref\"><a href=\"#fn-\(label)\" id=\"fnref-\(label)\" data-footnote-ref>\(number + 1)</a></sup>"))
            #expect(html.contains("<li id=\"fn-\(label)\">"))
            #expect(html.contains("<a href=\"#fnref-\(label)\" class=\"footnote-backref\" data-footnote-backref"))
        }
        #expect(html.contains("<p>This doesn't have a referent[^nope].</p>"))
        #expect(html.contains("<section class=\"footnotes\" data-footnotes>"))
        #expect(!html.contains("This is unused"))
        #expect(html.contains("<blockquote>\n<p>Blockquotes can be in a footnote.</p>\n</blockquote>"))
    }
}

extension GFMExample {
    /// Whether the example shows the tag filter (raw HTML rewritten), in either file.
    var isTagFilter: Bool { kind == "tagfilter" || section == "HTML tag filter" }
}
