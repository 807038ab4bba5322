import NotesCore

/// The "unknown command" error of the admin command line, with the nearest known name when one
/// is close enough to be a typo (`user lst` → `list`), as git and swift-argument-parser do.
enum CommandSuggestion {
    /// A usage error (exit 2) saying `word` is not one of `known`, suggesting the nearest.
    static func unknown(_ kind: String, _ word: String, known: [String]) -> UsageError {
        guard let nearest = nearest(to: word, in: known) else { return UsageError("unknown \(kind) '\(word)'") }
        return UsageError("unknown \(kind) '\(word)'; did you mean `\(nearest)`?")
    }

    /// The known name within an edit distance of 2 (or a prefix of at least 2 characters), if any.
    static func nearest(to word: String, in known: [String]) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 2, let prefixed = known.first(where: { $0.hasPrefix(lowered) }) { return prefixed }
        let scored = known.map { (name: $0, distance: distance(Array(lowered), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 2,
              best.distance < max(lowered.count, 1) else { return nil }
        return best.name
    }

    /// Levenshtein distance between two short words.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1]
            for (j, right) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
