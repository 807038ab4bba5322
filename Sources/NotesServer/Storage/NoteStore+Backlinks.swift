import Foundation
import NotesCore

/// Which notes link to a note, for the web app's "Linked from": Markdown links (`[x](../a.md)`)
/// and wiki links (`[[a]]`) resolved as export resolves them.
extension NoteStore {
    /// The most candidate notes read for one answer.
    static let backlinkCandidates = 200

    /// Live notes of `userID` (other than the note itself) whose text links to `path`.
    ///
    /// The search index narrows the candidates to notes that mention the file's name; only
    /// those are read and their links resolved, so a page view does not read every note.
    func notes(linkingTo path: String, userID: Int64) throws -> [NoteRecord] {
        let stem = WebLinkText.stem(of: path)
        guard !stem.isEmpty else { return [] }
        let phrase = "\"" + stem.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let columns = NoteRecord.columns(of: "n", withContent: true)
        // The index finds only what it indexed: the user's queued notes go in first, as for a search.
        try indexQueuedSearches(of: userID, query: stem)
        return try database.read { db in
            let candidates: [NoteRecord]
            if db.dialect == .postgres {
                guard let words = PostgresSchema.searchWords(stem.replacingOccurrences(of: "*", with: " ")) else { return [] }
                candidates = try db.query("""
                    WITH hits AS (\(PostgresSchema.matchingNotes(words: "?1", user: "?2")))
                    SELECT \(columns) FROM hits JOIN notes n ON n.nid = hits.nid
                    WHERE n.deleted = 0 AND n.path != ?3
                    LIMIT ?4
                    """, [words, userID, path, Self.backlinkCandidates]) { try NoteRecord(row: $0, withContent: true) }
            } else {
                candidates = try db.query("""
                    SELECT \(columns)
                    FROM notes_fts JOIN notes n ON n.nid = notes_fts.rowid
                    WHERE notes_fts MATCH ? AND n.user_id = ? AND n.deleted = 0 AND n.path != ?
                    LIMIT ?
                    """, [phrase, userID, path, Self.backlinkCandidates]) { try NoteRecord(row: $0, withContent: true) }
            }
            guard !candidates.isEmpty else { return [] }
            let resolver = WikiLinkResolver(files: try Self.livePaths(db, userID: userID))
            return candidates.filter { WebLinkText.links(in: $0.content ?? "", from: $0.path, to: path, resolver: resolver) }
                .map(\.withoutContent)
                .sorted { $0.path < $1.path }
        }
    }
}

/// Reading link targets out of Markdown text, just well enough to find backlinks.
enum WebLinkText {
    /// The file name without its note extension (`.md`, `.markdown`), as a wiki link writes it.
    static func stem(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return EntryKind.droppingNoteExtension(name)
    }

    /// Whether `text`, the note at `source`, links to `target` by a wiki link or a Markdown link.
    static func links(in text: String, from source: String, to target: String, resolver: WikiLinkResolver) -> Bool {
        var rest = Substring(text)
        while let open = rest.range(of: "[["), let close = rest[open.upperBound...].range(of: "]]") {
            let inner = rest[open.upperBound..<close.lowerBound]
            let name = inner.prefix { $0 != "|" && $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if !name.isEmpty, resolver.resolve(name, from: source) == target { return true }
            rest = rest[close.upperBound...]
        }
        rest = Substring(text)
        while let open = rest.range(of: "](") {
            var destination = rest[open.upperBound...].prefix { $0 != ")" && $0 != " " && $0 != "\n" }
            rest = rest[open.upperBound...]
            if destination.hasPrefix("<") { destination = destination.dropFirst().prefix { $0 != ">" } }
            let bare = destination.prefix { $0 != "#" && $0 != "?" }
            guard !bare.isEmpty, !bare.contains(":"), let decoded = String(bare).removingPercentEncoding else { continue }
            if resolve(decoded, from: source) == target { return true }
        }
        return false
    }

    /// `relative` (`../a.md`, `./b.md`, `/c.md`) as a path from the folder of `source`.
    static func resolve(_ relative: String, from source: String) -> String? {
        var parts = relative.hasPrefix("/") ? [] : source.split(separator: "/").dropLast().map(String.init)
        for segment in relative.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..": guard !parts.isEmpty else { return nil }; parts.removeLast()
            default: parts.append(String(segment))
            }
        }
        return parts.joined(separator: "/")
    }
}
