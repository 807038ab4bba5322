/// The "did you mean" of a mistyped command or option: the nearest known word, when one is
/// close enough to be a typo (`synk` → `sync`, `lst` → `list`), as git and swift-argument-parser do.
public enum Suggestion {
    /// The known word that the typed word (at least two characters long) begins, else the one
    /// within an edit distance of 1, or of 2 for a word of five characters or more, a swap of
    /// neighbouring letters counting as one edit (`sycn` → `sync`); nil when nothing is
    /// plausibly meant (`tcsh` is not a typo of `bash`).
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

    /// Optimal-string-alignment distance between two short words: Levenshtein's insertions,
    /// deletions and substitutions, plus a swap of two neighbouring letters as one edit, since
    /// that is the commonest slip of the fingers (`sycn`, `lgo`).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // rows[i][j]: the distance between the first i letters of a and the first j of b.
        var rows = [Array(0...b.count)]
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = rows[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], rows[i - 2][j - 2] + 1)
                }
            }
            rows.append(row)
        }
        return rows[a.count][b.count]
    }
}
