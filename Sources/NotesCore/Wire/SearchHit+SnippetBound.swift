extension SearchResults.Hit {
    /// The most Unicode scalars a hit's snippet holds, `…` marks included: a few hundred around
    /// the match, whatever the length of the line or the word it was cut from.
    public static let maxSnippetScalars = 300

    /// The hit with its snippet cut to at most `maxScalars` scalars around its first highlight
    /// (a third of the room before it, the rest after), `…` on each side where text was cut, and
    /// the highlights moved and clipped to match. A snippet within the bound is kept as it is.
    ///
    /// The server bounds every hit it answers with this; a client bounds what it prints with it
    /// too, whatever a server sent.
    public func boundingSnippet(to maxScalars: Int = maxSnippetScalars) -> SearchResults.Hit {
        precondition(maxScalars >= 3, "a snippet needs room for its text and two ellipses")
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > maxScalars else { return self }
        let room = maxScalars - 2
        let anchor = min(highlights.first.map { max($0.start, 0) } ?? 0, scalars.count)
        var start = max(0, anchor - room / 3)
        let end = min(scalars.count, start + room)
        if end - start < room { start = max(0, end - room) }
        let lead = start > 0 ? 1 : 0
        var cut = String.UnicodeScalarView()
        if lead == 1 { cut.append("…") }
        cut.append(contentsOf: scalars[start..<end])
        if end < scalars.count { cut.append("…") }
        let moved = highlights.compactMap { highlight -> SearchHighlight? in
            let from = max(highlight.start, start), to = min(highlight.end, end)
            guard from < to else { return nil }
            return SearchHighlight(start: from - start + lead, end: to - start + lead)
        }
        return SearchResults.Hit(id: id, path: path, text: String(cut), highlights: moved, rev: rev)
    }
}
