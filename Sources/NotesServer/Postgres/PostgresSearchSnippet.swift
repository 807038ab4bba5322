import Foundation
import NotesCore

/// The snippet of a search hit on PostgreSQL, made as the SQLite backend's FTS5 `snippet()`
/// makes it, so both backends answer the same text and highlight ranges.
///
/// PostgreSQL's `ts_headline` rewrites what it shows (it drops leading punctuation and the last
/// line break, and picks covers by its own rules); here the note's own text is cut instead:
/// words are runs of letters and digits (FTS5's `unicode61`), compared folded for case and
/// accents; a query word ending in `*` matches as a prefix. A note of at most `maxWords` words is
/// shown whole; a longer one as the `maxWords` words from the first match on (or the last
/// `maxWords`, near the end), with `…` where text was cut.
enum PostgresSearchSnippet {
    /// One word of the text, by its scalar offsets.
    private struct Word {
        let start: Int
        let end: Int
        let folded: String
    }

    /// What a query asks for: folded words, each whole or a prefix.
    struct Terms {
        let words: [(text: String, prefix: Bool)]

        /// The words of a query's terms; a term with punctuation inside (`foo-bar`) asks for each
        /// of its parts, the last one a prefix when the term is.
        init(_ terms: [SearchTerm]) {
            self.words = terms.flatMap { term -> [(String, Bool)] in
                let parts = PostgresSearchSnippet.words(in: Array(term.word.unicodeScalars))
                return parts.enumerated().map { index, part in (part.folded, term.isPrefix && index == parts.count - 1) }
            }
        }

        func matches(_ folded: String) -> Bool {
            words.contains { $0.prefix ? folded.hasPrefix($0.text) : folded == $0.text }
        }
    }

    /// The snippet of `content` for `terms`, marked with U+0002/U+0003 around each match, as
    /// the SQLite backend's snippets come.
    static func marked(_ content: String, terms: Terms, maxWords: Int = 16) -> String {
        let scalars = Array(content.unicodeScalars)
        let words = words(in: scalars)
        var first = 0, last = words.count
        if words.count > maxWords {
            let hit = words.firstIndex { terms.matches($0.folded) } ?? 0
            first = min(hit, words.count - maxWords)
            last = first + maxWords
        }
        let from = first == 0 ? 0 : words[first].start
        let to = last == words.count ? scalars.count : words[last - 1].end
        var output = String.UnicodeScalarView()
        if from > 0 { output.append(contentsOf: "…".unicodeScalars) }
        var position = from
        for word in words[first..<last] where terms.matches(word.folded) {
            output.append(contentsOf: scalars[position..<word.start])
            output.append("\u{2}")
            output.append(contentsOf: scalars[word.start..<word.end])
            output.append("\u{3}")
            position = word.end
        }
        output.append(contentsOf: scalars[position..<to])
        if to < scalars.count { output.append(contentsOf: "…".unicodeScalars) }
        return String(output)
    }

    /// The words of `scalars`: runs of letters, marks and digits.
    private static func words(in scalars: [Unicode.Scalar]) -> [Word] {
        var words: [Word] = []
        var start: Int?
        for index in 0...scalars.count {
            let isWordScalar = index < scalars.count && isWordPart(scalars[index])
            if isWordScalar, start == nil { start = index }
            if !isWordScalar, let begun = start {
                let text = String(String.UnicodeScalarView(scalars[begun..<index]))
                words.append(Word(start: begun, end: index, folded: text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)))
                start = nil
            }
        }
        return words
    }

    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isAlphabetic || properties.numericType != nil
            || [.nonspacingMark, .spacingMark, .enclosingMark].contains(properties.generalCategory)
    }
}
