/// One word of a search box's text, as both backends take it: the text is split at whitespace
/// (at most 16 words), `*`s are trimmed from both ends of a word, and a word that ended in `*`
/// matches as a prefix; a word of nothing but `*` is dropped. Nothing in a word is query syntax.
struct SearchTerm: Equatable {
    let word: String
    let isPrefix: Bool

    /// The terms of `query`, in order.
    static func terms(of query: String) -> [SearchTerm] {
        query.split(whereSeparator: { $0.isWhitespace }).prefix(16).compactMap { word in
            let bare = word.drop(while: { $0 == "*" }).reversed().drop(while: { $0 == "*" }).reversed()
            return bare.isEmpty ? nil : SearchTerm(word: String(bare), isPrefix: word.hasSuffix("*"))
        }
    }
}
