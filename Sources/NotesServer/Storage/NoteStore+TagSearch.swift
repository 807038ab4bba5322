import NotesCore

/// `tag:NAME` in a search (`GET /v1/search`, the web app's search): only notes carrying the tag,
/// or one nested under it, are found; the other words are searched as usual.
extension NoteStore {
    /// The most word matches a search with tags filters by them.
    static let taggedSearchCandidates = 200

    /// `search(userID:query:limit:)`, with each `tag:NAME` (or `tag:#NAME`) in `query` keeping
    /// only the notes that carry it (`NoteTags`). With tags alone, the notes carrying them, the
    /// most recently changed first, with empty snippets; with words too, the best of the first
    /// `taggedSearchCandidates` word matches that carry them.
    func searchWithTagFilters(userID: Int64, query: String, limit: Int) throws -> SearchResults {
        let (tags, words) = Self.tagFilters(of: query)
        guard !tags.isEmpty else { return try search(userID: userID, query: query, limit: limit) }
        let carrying = try NoteTags(userID: userID, store: self).tagged.filter { entry in tags.allSatisfy { NoteTags.carry(entry.tags, $0) } }
        guard !words.isEmpty else {
            return SearchResults(results: carrying.prefix(limit).map { entry in
                SearchResults.Hit(id: entry.note.id, path: entry.note.path, text: "", highlights: [], rev: entry.note.rev)
            })
        }
        let ids = Set(carrying.map(\.note.id))
        let hits = try search(userID: userID, query: words, limit: Self.taggedSearchCandidates).results.filter { ids.contains($0.id) }
        return SearchResults(results: Array(hits.prefix(limit)))
    }

    /// The tags a query names (`tag:NAME`, any letter case, `#` optional) and its other words.
    static func tagFilters(of query: String) -> (tags: [String], words: String) {
        var tags: [String] = [], words: [Substring] = []
        for word in query.split(whereSeparator: \.isWhitespace) {
            if word.lowercased().hasPrefix("tag:") {
                var name = word.dropFirst(4)
                if name.hasPrefix("#") { name = name.dropFirst() }
                if !name.isEmpty { tags.append(String(name)) }
            } else {
                words.append(word)
            }
        }
        return (tags, words.joined(separator: " "))
    }
}
