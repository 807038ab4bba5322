/// The "did you mean" of a mistyped command or option: the nearest known word, when one is
/// close enough to be a typo (`synk` → `sync`, `lst` → `list`), as git and swift-argument-parser do.
public enum Suggestion {
    /// The known word that the typed word (at least two characters long) begins, else the one
    /// within an edit distance of 1, or of 2 for a word of five characters or more; nil when
    /// nothing is plausibly meant (`tcsh` is not a typo of `bash`).
    public static func nearest(to word: String, in known: [String]) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 2, let prefixed = known.first(where: { $0.hasPrefix(lowered) }) { return prefixed }
        let scored = known.map { (name: $0, distance: distance(Array(lowered), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= (lowered.count >= 5 ? 2 : 1), best.distance < lowered.count else { return nil }
        return best.name
    }

    /// "; did you mean `sync`?" or nothing, to append to an error.
    static func clause(for word: String, in known: [String], prefix: String = "") -> String {
        guard let nearest = nearest(to: word, in: known) else { return "" }
        return "; did you mean `\(prefix)\(nearest)`?"
    }

    /// Levenshtein distance between two short words.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
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
