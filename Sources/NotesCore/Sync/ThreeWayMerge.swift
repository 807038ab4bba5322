/// Three-way merge of text by lines (diff3), byte-exact: line endings, a missing final newline
/// and any bytes inside lines survive as they were.
///
/// Changes of both sides that touch the same or adjacent base lines are a conflict, as in git:
/// the order of two neighbouring edits is a guess, and sync never guesses (the conflict copy
/// keeps both versions instead). One case is not a guess: when both sides only appended to the
/// end of the base (a journal written on two devices), both additions are kept, the server's
/// first (see `appending`).
public enum ThreeWayMerge {
    /// The outcome of a merge.
    public enum Result: Equatable, Sendable {
        /// Every change applies cleanly; the merged bytes.
        case clean([UInt8])
        /// Both sides changed the same region differently (or the texts are too far apart to tell).
        case conflict
    }

    /// The most lines, of the three texts together, merged line by line. The merge's tables cost
    /// about 60 bytes a line, so a 10 MB note of very short lines would need close to 1 GB (the
    /// client's budget is 200 MB); past this bound the texts count as a conflict, which keeps
    /// both versions rather than risking the memory.
    public static let maxLines = 1_000_000

    /// Merges `ours` and `theirs`, both derived from `base`.
    public static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) -> Result {
        if ours == theirs || theirs == base { return .clean(ours) }
        if ours == base { return .clean(theirs) }
        if let appended = appending(base: base, ours: ours, theirs: theirs) { return .clean(appended) }
        let newline = UInt8(ascii: "\n")
        let lineCount = [base, ours, theirs].reduce(0) { total, text in total + text.reduce(1) { $0 + ($1 == newline ? 1 : 0) } }
        guard lineCount <= maxLines else { return .conflict }
        var interner = LineInterner()
        let baseLines = interner.ids(base), ourLines = interner.ids(ours), theirLines = interner.ids(theirs)
        guard let toOurs = LineDiff.match(baseLines.ids, ourLines.ids),
              let toTheirs = LineDiff.match(baseLines.ids, theirLines.ids) else { return .conflict }
        var output: [UInt8] = []
        output.reserveCapacity(max(ours.count, theirs.count))
        var i = 0, j = 0, k = 0
        let n = baseLines.ids.count
        while i < n || j < ourLines.ids.count || k < theirLines.ids.count {
            // A stable run: base lines kept, in place, by both sides.
            var stable = 0
            while i + stable < n, toOurs[i + stable] == j + stable, toTheirs[i + stable] == k + stable { stable += 1 }
            if stable > 0 {
                output += base[baseLines.span(i..<(i + stable))]
                i += stable
                j += stable
                k += stable
                continue
            }
            // An unstable chunk reaches to the next base line both sides kept (or to the end).
            var next = i
            while next < n, toOurs[next] < 0 || toTheirs[next] < 0 { next += 1 }
            let nextOurs = next < n ? toOurs[next] : ourLines.ids.count
            let nextTheirs = next < n ? toTheirs[next] : theirLines.ids.count
            let baseChunk = baseLines.ids[i..<next]
            let ourChunk = ourLines.ids[j..<nextOurs]
            let theirChunk = theirLines.ids[k..<nextTheirs]
            if ourChunk.elementsEqual(baseChunk) {
                output += theirs[theirLines.span(k..<nextTheirs)]
            } else if theirChunk.elementsEqual(baseChunk) || ourChunk.elementsEqual(theirChunk) {
                output += ours[ourLines.span(j..<nextOurs)]
            } else {
                return .conflict
            }
            i = next
            j = nextOurs
            k = nextTheirs
        }
        return .clean(output)
    }

    /// Both additions when `ours` and `theirs` each only appended bytes to a non-empty `base`:
    /// the server's (`theirs`) first, then the local one, with a newline between them when the
    /// first does not end a line (a base without a final newline gets one there); an identical
    /// addition once. `nil` for any other pair of edits.
    ///
    /// An empty base is left to the line merge: two unrelated texts (a base the server no longer
    /// has) are not an append and keep both versions as a conflict copy.
    static func appending(base: [UInt8], ours: [UInt8], theirs: [UInt8]) -> [UInt8]? {
        guard !base.isEmpty, ours.count > base.count, theirs.count > base.count,
              ours.starts(with: base), theirs.starts(with: base) else { return nil }
        let addition = ours[base.count...]
        if theirs[base.count...].elementsEqual(addition) { return theirs }
        let newline = UInt8(ascii: "\n")
        var merged = theirs
        if merged.last != newline && addition.first != newline { merged.append(newline) }
        merged += addition
        return merged
    }

    /// Merges strings (UTF-8 text); `nil` on conflict.
    public static func merge(base: String, ours: String, theirs: String) -> String? {
        switch merge(base: Array(base.utf8), ours: Array(ours.utf8), theirs: Array(theirs.utf8)) {
        case .clean(let bytes): String(decoding: bytes, as: UTF8.self)  // whole lines of valid UTF-8 stay valid
        case .conflict: nil
        }
    }
}

/// Gives equal lines equal small integers, so diffing compares integers instead of bytes.
struct LineInterner {
    /// The lines of one text: their byte ranges and their ids.
    struct Lines {
        var ranges: [Range<Int>]
        var ids: [Int]

        /// The byte range covering lines `lines` (empty at the end of the text).
        func span(_ lines: Range<Int>) -> Range<Int> {
            guard !lines.isEmpty else { return 0..<0 }
            return ranges[lines.lowerBound].lowerBound..<ranges[lines.upperBound - 1].upperBound
        }
    }

    private var table: [ArraySlice<UInt8>: Int] = [:]

    mutating func ids(_ bytes: [UInt8]) -> Lines {
        let ranges = LineDiff.lines(bytes)
        var ids: [Int] = []
        ids.reserveCapacity(ranges.count)
        for range in ranges {
            let line = bytes[range]
            if let id = table[line] {
                ids.append(id)
            } else {
                let id = table.count
                table[line] = id
                ids.append(id)
            }
        }
        return Lines(ranges: ranges, ids: ids)
    }
}
