import Foundation
import Testing

/// One example of the GFM spec or of cmark-gfm's `extensions.txt`: what follows `example` on
/// its opening fence (`table`, `autolink`, `disabled`: empty for a CommonMark one), its section,
/// the Markdown and the expected HTML.
struct GFMExample: Sendable, CustomTestStringConvertible {
    var file: String
    var number: Int
    var kind: String
    var section: String
    var markdown: String
    var html: String

    var testDescription: String { "\(file) example \(number) (\(section))" }
}

/// Reads `../shared/gfm/` (beside the package root, as `CommonMarkSpec` finds the CommonMark spec).
enum GFMSpec {
    static let folder: URL = CommonMarkSpec.url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("gfm")

    /// Whether the suites run: the files are present, or CI requires them (then absence fails).
    static let shouldRun = CommonMarkSpec.isRequired || FileManager.default.fileExists(atPath: folder.appendingPathComponent("spec.txt").path)

    static let skipReason: Comment = "GFM spec not found in \(folder.path): put the GFM spec 0.29 and extensions.txt there (the project's shared/gfm/)"

    /// Every example of `name` (`spec.txt`, `extensions.txt`), numbered from 1 in document order.
    static func examples(in name: String) throws -> [GFMExample] {
        let path = folder.appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path) else { throw CommonMarkSpecError.missing(path) }
        return SpecText.examples(in: String(decoding: data, as: UTF8.self)).enumerated().map { index, example in
            GFMExample(file: name, number: index + 1, kind: example.kind, section: example.section,
                       markdown: example.markdown, html: example.html)
        }
    }
}

/// HTML compared as cmark-gfm's own test runner compares it (`test/normalize.py`), in the part
/// that matters here: attributes sorted and `/>` read as `>`.
enum HTMLNormaliser {
    private static let tag = try? NSRegularExpression(pattern: #"<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*/?>"#)
    private static let attribute = try? NSRegularExpression(pattern: #"[a-zA-Z-]+(?:="[^"]*")?"#)

    static func normalise(_ html: String) -> String {
        guard let tag, let attribute else { return html }
        var out = ""
        var last = html.startIndex
        for match in tag.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            guard let whole = Range(match.range, in: html), let name = Range(match.range(at: 1), in: html),
                  let attributes = Range(match.range(at: 2), in: html) else { continue }
            out += html[last..<whole.lowerBound]
            let sorted = attribute.matches(in: html, range: NSRange(attributes, in: html)).compactMap { Range($0.range, in: html).map { String(html[$0]) } }.sorted()
            out += "<" + html[name].lowercased() + sorted.map { " " + $0 }.joined() + ">"
            last = whole.upperBound
        }
        out += html[last...]
        return out
    }
}
