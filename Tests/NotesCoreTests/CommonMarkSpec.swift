import Foundation
import Testing

/// One example of the CommonMark spec: its number (1-based, as on spec.commonmark.org), the
/// Markdown and the HTML a conforming renderer produces with raw HTML allowed.
struct CommonMarkExample: Sendable {
    var number: Int
    var section: String
    var markdown: String
    var html: String
}

/// Reads `../shared/commonmark/spec.txt` (beside the package root) into its examples.
enum CommonMarkSpec {
    /// Where the spec lives: found from this file's path, so it works from any clone that has
    /// `shared/` beside it, whatever the working directory.
    static let url: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { break }
            folder.deleteLastPathComponent()
        }
        return folder.deletingLastPathComponent().appendingPathComponent("shared/commonmark/spec.txt")
    }()

    /// Set by `.ci/run`: CI must always run the conformance suite, so there a missing spec fails.
    static let isRequired = ProcessInfo.processInfo.environment["NOTES_REQUIRE_COMMONMARK_SPEC"] == "1"

    /// Whether the suite runs: the spec is present, or CI requires it (and then its absence fails).
    static let shouldRun = isRequired || FileManager.default.fileExists(atPath: url.path)

    /// Why the suite is skipped in a clone without `shared/` beside it.
    static let skipReason: Comment = """
        CommonMark spec not found at \(url.path): put the CommonMark 0.30 spec.txt there \
        (the project's shared/commonmark/) to run the conformance suite
        """

    /// Every example in document order.
    /// - Throws: `CommonMarkSpecError.missing` when the spec is not where CI puts it.
    static func examples() throws -> [CommonMarkExample] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CommonMarkSpecError.missing(url.path)
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// Splits spec text into examples (`SpecText.examples`), numbered from 1 in document order.
    static func parse(_ text: String) -> [CommonMarkExample] {
        SpecText.examples(in: text).enumerated().map { index, example in
            CommonMarkExample(number: index + 1, section: example.section, markdown: example.markdown, html: example.html)
        }
    }
}

/// The example format the CommonMark and GFM specs (and cmark-gfm's `extensions.txt`) share:
/// fenced by 32 backticks and `example` (followed, in the GFM files, by the example's kind such
/// as `table`), a lone `.` between Markdown and HTML, `→` standing for a tab.
enum SpecText {
    struct Example {
        var kind: String
        var section: String
        var markdown: String
        var html: String
    }

    /// Every example of `text`, in document order.
    static func examples(in text: String) -> [Example] {
        let fence = String(repeating: "`", count: 32)
        var examples: [Example] = []
        var section = "", kind = ""
        var markdown: [Substring] = [], html: [Substring] = []
        var state = 0  // 0 outside, 1 in Markdown, 2 in HTML
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            switch state {
            case 0:
                if line.hasPrefix(fence + " example") {
                    kind = line.dropFirst(fence.count + " example".count).trimmingCharacters(in: .whitespaces)
                    state = 1
                } else if line.hasPrefix("#") {
                    section = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
                }
            case 1:
                if line == "." { state = 2 } else { markdown.append(line) }
            default:
                if line == fence {
                    examples.append(Example(kind: kind, section: section, markdown: joined(markdown), html: joined(html)))
                    markdown = []
                    html = []
                    state = 0
                } else {
                    html.append(line)
                }
            }
        }
        return examples
    }

    private static func joined(_ lines: [Substring]) -> String {
        lines.map { $0 + "\n" }.joined().replacingOccurrences(of: "→", with: "\t")
    }
}

enum CommonMarkSpecError: Error, CustomStringConvertible {
    case missing(String)

    var description: String {
        "CommonMark spec not found at \(self.path): CI expects shared/commonmark/spec.txt beside the package"
    }

    private var path: String {
        switch self { case .missing(let path): path }
    }
}
