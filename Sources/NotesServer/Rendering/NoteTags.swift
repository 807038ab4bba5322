import NotesCore

/// The tags of a user's notes, for the web app's tag pages and `tag:` in search: as each note's
/// rendering finds them (front matter `tags` and inline `#tags`, never inside code), so a tag
/// page lists exactly the notes whose pages show the tag.
///
/// They are kept per note in `note_tags`, read from each note once after it changes
/// (`NoteStore+Tags.swift`), so an answer reads rows, not notes, whatever the number of notes.
/// Tags nest as Obsidian's do: a note tagged `#project/notes` is listed under `project` too.
/// Letter case is ignored, as there.
struct NoteTags {
    /// Each note that carries a tag, with its tags, the most recently changed first.
    let tagged: [(note: NoteRecord, tags: [String])]

    /// `userID`'s tagged notes, every change read first.
    init(userID: Int64, store: NoteStore) throws {
        tagged = try store.taggedNotes(userID: userID)
    }

    /// Whether `tags` hold `tag`, or a tag nested under it (`a/b` under `a`), ignoring case.
    static func carry(_ tags: [String], _ tag: String) -> Bool {
        let wanted = tag.lowercased()
        return tags.contains { carried in
            let lowered = carried.lowercased()
            return lowered == wanted || lowered.hasPrefix(wanted + "/")
        }
    }

    /// The notes carrying `tag` or a tag nested under it, by path.
    func notes(tagged tag: String) -> [NoteRecord] {
        tagged.filter { Self.carry($0.tags, tag) }.map(\.note).sorted { $0.path < $1.path }
    }

    /// Every tag and every tag it nests under (`a` for `a/b`), with how many notes carry it or
    /// one nested under it, by name; each spelled as it was first met.
    var counts: [(tag: String, notes: Int)] {
        var spelling: [String: String] = [:]
        var counts: [String: Int] = [:]
        for (_, tags) in tagged {
            var seen = Set<String>()
            for tag in tags {
                let parts = tag.split(separator: "/")
                for depth in parts.indices.map({ $0 + 1 }) {
                    let name = parts.prefix(depth).joined(separator: "/")
                    let key = name.lowercased()
                    guard seen.insert(key).inserted else { continue }
                    spelling[key] = spelling[key] ?? name
                    counts[key, default: 0] += 1
                }
            }
        }
        return counts.keys.sorted().map { (spelling[$0] ?? $0, counts[$0] ?? 0) }
    }
}
