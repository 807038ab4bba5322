import Foundation
import Testing
@testable import NotesCore

/// Runs every example of the CommonMark 0.30 spec through the project's renderer, both ways it
/// renders: straight to HTML (notes render, the server) and through the node tree (export).
@Suite("CommonMark 0.30 conformance")
struct CommonMarkConformanceTests {
    /// The two rendering paths of `MarkdownRenderer`.
    enum RenderPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case direct, nodeTree
        var testDescription: String { rawValue }

        func html(_ markdown: String, _ renderer: MarkdownRenderer) -> String {
            switch self {
            case .direct: renderer.html(from: markdown)
            case .nodeTree: renderer.render(Array(markdown.utf8)).html
            }
        }
    }

    @Test("with raw HTML allowed (--unsafe), all 652 examples equal the expected HTML byte for byte",
          .enabled(if: CommonMarkSpec.shouldRun, CommonMarkSpec.skipReason), arguments: RenderPath.allCases)
    func unsafeModeMatchesSpecExactly(path: RenderPath) throws {
        let examples = try CommonMarkSpec.examples()
        try #require(examples.count == 652, "spec.txt should hold the 652 examples of CommonMark 0.30")
        let renderer = MarkdownRenderer(allowsUnsafeHTML: true)
        let failing = examples.filter { path.html($0.markdown, renderer) != $0.html }.map(\.number)
        #expect(failing.isEmpty, "examples that differ from the spec: \(failing)")
    }

    @Test("in safe mode, examples differ only where raw HTML is omitted or an unsafe destination emptied",
          .enabled(if: CommonMarkSpec.shouldRun, CommonMarkSpec.skipReason), arguments: RenderPath.allCases)
    func safeModeDiffersOnlyByOmissions(path: RenderPath) throws {
        let examples = try CommonMarkSpec.examples()
        try #require(examples.count == 652, "spec.txt should hold the 652 examples of CommonMark 0.30")
        var failing: [Int] = []
        var sanitised = 0
        for example in examples {
            let safe = path.html(example.markdown, .safe)
            if safe == example.html { continue }
            sanitised += 1
            if try !SafeModeDifference.explains(safe: safe, expected: example.html) { failing.append(example.number) }
        }
        #expect(failing.isEmpty, "examples whose safe output differs by more than omissions: \(failing)")
        // The raw-HTML section alone has dozens of examples; none sanitised means safe mode is off.
        #expect(sanitised > 40, "safe mode changed only \(sanitised) examples")
    }

    @Test("with wiki links and heading ids off (--commonmark), the export renderer passes all 652 examples",
          .enabled(if: CommonMarkSpec.shouldRun, CommonMarkSpec.skipReason))
    func commonMarkModeOfTheExportRenderer() throws {
        let examples = try CommonMarkSpec.examples()
        try #require(examples.count == 652, "spec.txt should hold the 652 examples of CommonMark 0.30")
        let renderer = MarkdownRenderer(allowsUnsafeHTML: true)
        let failing = examples.filter { renderer.render(Array($0.markdown.utf8), extensions: .commonMark).html != $0.html }.map(\.number)
        #expect(failing.isEmpty, "examples that differ from the spec: \(failing)")
    }

    @Test("with wiki links on, every example without [[ still renders as the spec says: the pass touches nothing else",
          .enabled(if: CommonMarkSpec.shouldRun, CommonMarkSpec.skipReason))
    func wikiLinksTouchNothingElse() throws {
        let examples = try CommonMarkSpec.examples().filter { !$0.markdown.contains("[[") }
        try #require(examples.count > 600)
        let renderer = MarkdownRenderer(allowsUnsafeHTML: true)
        let extensions = MarkdownExtensions(wikiLinks: { _ in "resolved.md" })
        let failing = examples.filter { renderer.render(Array($0.markdown.utf8), extensions: extensions).html != $0.html }.map(\.number)
        #expect(failing.isEmpty, "examples that differ from the spec: \(failing)")
    }

    @Test("the safe-mode comparison rejects a difference that is not an omission")
    func safeModeComparisonIsStrict() throws {
        #expect(try SafeModeDifference.explains(safe: "<p><!-- raw HTML omitted -->x</p>\n", expected: "<p><b>x</p>\n"))
        #expect(try SafeModeDifference.explains(safe: "<a href=\"\">a</a>", expected: "<a href=\"javascript:go()\">a</a>"))
        #expect(try !SafeModeDifference.explains(safe: "<p><!-- raw HTML omitted -->y</p>\n", expected: "<p><b>x</p>\n"))
        #expect(try !SafeModeDifference.explains(safe: "<a href=\"\">a</a>", expected: "<a href=\"https://a.example\">a</a>"))
        #expect(try !SafeModeDifference.explains(safe: "<p>a</p>\n", expected: "<p>b</p>\n"))
    }
}

/// Decides whether safe-mode output differs from the spec's expected HTML only in the two ways
/// safe mode allows: raw HTML replaced by `<!-- raw HTML omitted -->`, and a `javascript:`,
/// `vbscript:`, `file:` or non-image `data:` destination replaced by an empty one.
enum SafeModeDifference {
    private static let marker = try? NSRegularExpression(pattern: #"<!-- raw HTML omitted -->|(?:href|src)="""#)

    /// True when `expected` matches `safe` with each omission marker standing for raw HTML (text
    /// starting with `<` after at most 3 spaces) and each empty destination for an unsafe one; every other byte equal.
    static func explains(safe: String, expected: String) throws -> Bool {
        guard let marker else { throw CommonMarkSpecError.missing("marker pattern") }
        var pattern = #"\A"#
        var literalStart = safe.startIndex
        let range = NSRange(safe.startIndex..., in: safe)
        for match in marker.matches(in: safe, range: range) {
            guard let found = Range(match.range, in: safe) else { continue }
            pattern += NSRegularExpression.escapedPattern(for: String(safe[literalStart..<found.lowerBound]))
            if safe[found].hasPrefix("<!--") {
                pattern += #" {0,3}<[\s\S]*?"#  // an HTML block keeps up to 3 spaces of indentation
            } else {
                let attribute = safe[found].hasPrefix("href") ? "href" : "src"
                pattern += attribute + #"="(?:|(?i:javascript|vbscript|file|data(?!:image/(?:png|gif|jpeg|webp))):[^"]*)""#
            }
            literalStart = found.upperBound
        }
        pattern += NSRegularExpression.escapedPattern(for: String(safe[literalStart...])) + #"\z"#
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.firstMatch(in: expected, range: NSRange(expected.startIndex..., in: expected)) != nil
    }
}
