/// One matched stretch of a search snippet: `start..<end` in the snippet's Unicode scalars
/// (code points, as Python and most languages index text; not UTF-16 units, not bytes).
public struct SearchHighlight: Codable, Sendable, Equatable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// `text` with the markers taken out, and where they were. A stray or unmatched marker is
    /// dropped; a highlight never has zero length.
    public static func parse(_ marked: String, open: String, close: String) -> (text: String, highlights: [SearchHighlight]) {
        var text = String.UnicodeScalarView()
        var highlights: [SearchHighlight] = []
        var start: Int?
        var count = 0
        var rest = Substring(marked)
        while !rest.isEmpty {
            if start == nil, rest.hasPrefix(open) {
                start = count
                rest = rest.dropFirst(open.count)
            } else if let begun = start, rest.hasPrefix(close) {
                if count > begun { highlights.append(SearchHighlight(start: begun, end: count)) }
                start = nil
                rest = rest.dropFirst(close.count)
            } else if let scalar = rest.unicodeScalars.first {
                text.append(scalar)
                count += 1
                rest = Substring(rest.unicodeScalars.dropFirst())
            } else {
                break
            }
        }
        return (String(text), highlights)
    }

    /// `text` with each highlight wrapped in `open` and `close`.
    public static func marked(_ text: String, _ highlights: [SearchHighlight], open: String, close: String) -> String {
        pieces(text, highlights).map { $0.highlighted ? open + $0.text + close : $0.text }.joined()
    }

    /// `text` cut into plain and highlighted pieces, in order; highlights out of range, out of
    /// order or overlapping are clipped or skipped, so a hostile server cannot crash a client.
    public static func pieces(_ text: String, _ highlights: [SearchHighlight]) -> [(text: String, highlighted: Bool)] {
        let scalars = Array(text.unicodeScalars)
        var result: [(String, Bool)] = []
        var position = 0
        func take(_ range: Range<Int>, _ highlighted: Bool) {
            guard !range.isEmpty else { return }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            result.append((String(view), highlighted))
        }
        for highlight in highlights {
            let start = max(position, min(highlight.start, scalars.count))
            let end = max(start, min(highlight.end, scalars.count))
            take(position..<start, false)
            take(start..<end, true)
            position = end
        }
        take(position..<scalars.count, false)
        return result
    }
}

extension SearchHighlight: WireDescribed {
    public static let wireShape = WireShape<SearchHighlight>(
        "SearchHighlight", summary: "`start..<end` in Unicode scalars (code points) of the hit's `text`.",
        fields: [
            .required("start", \.start, ["minimum": 0]),
            .required("end", \.end, ["minimum": 0]),
        ])
}
