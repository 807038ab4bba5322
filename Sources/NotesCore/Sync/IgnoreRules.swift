/// `.notesignore`: the gitignore syntax that note-takers already know, for the parts that make
/// sense in a notes folder.
///
/// Supported: blank lines and `#` comments, `!` to re-include, a trailing `/` for folders only,
/// a `/` at the start or in the middle to anchor a pattern at the folder root (otherwise it
/// matches a name at any depth), `*`, `?`, `[abc]`/`[a-z]`/`[!a]`, and `**` for any number of
/// folders. As in git, the last matching rule wins, and a file inside an ignored folder stays
/// ignored (a `!` rule cannot reach into it).
public struct IgnoreRules: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        var pattern: [Unicode.Scalar]
        var negated: Bool
        var directoryOnly: Bool
        /// A pattern without a `/` (the editors' rules, most of `.notesignore`'s): it matches a
        /// name at any depth, so it is matched against the path's last name alone. The same
        /// as matching `**/` and it against the whole path (no `*`, `?`, class or character of
        /// such a pattern matches a `/`), without trying it after every `/` of the path.
        var anyDepthName: Bool
    }

    private var rules: [Rule] = []

    /// No rules: nothing is ignored.
    public init() {}

    /// Parses the text of a `.notesignore` file.
    public init(parsing text: String) {
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            var line = Substring(rawLine)
            if line.hasPrefix("#") { continue }
            // Trailing spaces are ignored unless escaped, as in git.
            while line.hasSuffix(" ") && !line.hasSuffix("\\ ") { line = line.dropLast() }
            if line.isEmpty { continue }
            var negated = false
            if line.hasPrefix("!") {
                negated = true
                line = line.dropFirst()
            } else if line.hasPrefix("\\!") || line.hasPrefix("\\#") {
                line = line.dropFirst()
            }
            var directoryOnly = false
            if line.hasSuffix("/") {
                directoryOnly = true
                line = line.dropLast()
            }
            guard !line.isEmpty else { continue }
            var pattern = String(line)
            let anyDepthName = !pattern.contains("/")
            if pattern.hasPrefix("/") { pattern.removeFirst() }
            rules.append(Rule(pattern: Array(pattern.unicodeScalars), negated: negated, directoryOnly: directoryOnly,
                              anyDepthName: anyDepthName))
        }
    }

    /// Whether there are no rules.
    public var isEmpty: Bool { rules.isEmpty }

    /// Editors' temporary files, which never sync and never wake a watching sync: vim's swap
    /// files and the `4913` file it writes to probe a folder, Emacs's backups (`name~`),
    /// auto-saves (`#name#`) and lock links (`.#name`, a dot-file anyway).
    public static let editorTemporaryFiles = IgnoreRules(parsing: "4913\n*.swp\n*.swx\n*.swo\n*~\n\\#*#\n.#*\n")

    /// A folder's rules: the editors' temporary files first, then `.notesignore`'s text, so a
    /// `!` rule there can still bring one of them back (the last matching rule wins).
    public static func folder(parsing text: String) -> IgnoreRules {
        var combined = editorTemporaryFiles
        combined.rules += IgnoreRules(parsing: text).rules
        return combined
    }

    /// Whether the file at `path` (relative, `/`-separated) is ignored, itself or by a folder.
    public func isIgnored(_ path: String) -> Bool {
        guard !rules.isEmpty else { return false }
        // The path's non-empty segments joined by single slashes, as scalars once; each folder
        // on the way is a prefix of it (a String and an array per prefix were 4 % of a clone).
        var joined: [Unicode.Scalar] = []
        joined.reserveCapacity(path.utf8.count)
        var ends: [Int] = []
        // One pass over the scalars (a split made an array of slices a path first).
        var inSegment = false
        for scalar in path.unicodeScalars {
            if scalar == "/" {
                if inSegment { ends.append(joined.count) }
                inSegment = false
                continue
            }
            if !inSegment && !joined.isEmpty { joined.append("/") }
            inSegment = true
            joined.append(scalar)
        }
        if inSegment { ends.append(joined.count) }
        for (index, end) in ends.enumerated() where decision(for: joined[..<end], isFolder: index < ends.count - 1) {
            return true
        }
        return false
    }

    private func decision(for path: ArraySlice<Unicode.Scalar>, isFolder: Bool) -> Bool {
        let name = path[(path.lastIndex(of: "/").map { $0 + 1 } ?? path.startIndex)...]
        var ignored = false
        for rule in rules where !rule.directoryOnly || isFolder {
            if Glob.matches(rule.pattern[...], rule.anyDepthName ? name : path) { ignored = !rule.negated }
        }
        return ignored
    }
}

/// Glob matching with gitignore's meaning of `*` (not across `/`) and `**` (across folders).
enum Glob {
    static func matches(_ pattern: ArraySlice<Unicode.Scalar>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
        var p = pattern.startIndex, t = text.startIndex
        while p < pattern.endIndex {
            let c = pattern[p]
            switch c {
            case "*":
                if p + 1 < pattern.endIndex, pattern[p + 1] == "*" {
                    // `**/` matches zero or more whole folders; a trailing `**` matches everything.
                    var rest = p + 2
                    if rest < pattern.endIndex, pattern[rest] == "/" { rest += 1 }
                    if rest == pattern.endIndex { return true }
                    var start = t
                    while true {
                        if matches(pattern[rest...], text[start...]) { return true }
                        guard let slash = text[start...].firstIndex(of: "/") else { return false }
                        start = slash + 1
                    }
                }
                // A plain tail (`*.swp`, `*~`: most patterns) can only match the text's end, so
                // it is compared there once instead of at every place `*` could stop (trying
                // every place was most of a clone's ignore checks).
                let tail = pattern[(p + 1)...]
                if !tail.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" || $0 == "\\" }) {
                    guard text.endIndex - t >= tail.count else { return false }
                    let split = text.endIndex - tail.count
                    return !text[t..<split].contains("/") && text[split...].elementsEqual(tail)
                }
                var start = t
                while true {
                    if matches(pattern[(p + 1)...], text[start...]) { return true }
                    guard start < text.endIndex, text[start] != "/" else { return false }
                    start += 1
                }
            case "?":
                guard t < text.endIndex, text[t] != "/" else { return false }
            case "[":
                guard t < text.endIndex, let (matched, end) = matchClass(pattern, from: p, text[t]) else {
                    if t < text.endIndex, text[t] == "[" { break }  // a lone `[` is literal
                    return false
                }
                guard matched else { return false }
                p = end
            case "\\" where p + 1 < pattern.endIndex:
                p += 1
                guard t < text.endIndex, text[t] == pattern[p] else { return false }
            default:
                guard t < text.endIndex, text[t] == c else { return false }
            }
            p += 1
            t += 1
        }
        return t == text.endIndex
    }

    /// Matches `character` against the class starting at `start` (`[`); returns whether it
    /// matched and the index of the closing `]`, or `nil` when the class is not closed.
    private static func matchClass(_ pattern: ArraySlice<Unicode.Scalar>, from start: Int, _ character: Unicode.Scalar) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < pattern.endIndex, pattern[i] == "!" || pattern[i] == "^" {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < pattern.endIndex {
            let c = pattern[i]
            if c == "]" && !first { return (matched != negate && character != "/", i) }
            first = false
            if i + 2 < pattern.endIndex, pattern[i + 1] == "-", pattern[i + 2] != "]" {
                let upper = pattern[i + 2].value
                if c.value <= upper, (c.value...upper).contains(character.value) { matched = true }
                i += 3
            } else {
                if c == character { matched = true }
                i += 1
            }
        }
        return nil
    }
}
