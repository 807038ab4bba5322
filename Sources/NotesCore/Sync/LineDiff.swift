/// Line-level longest-common-subsequence matching (Myers' O(ND) algorithm), the base of the
/// three-way merge.
///
/// Lines keep their terminators (`\n`, `\r\n`, or none on a last line), so a merge rebuilt from
/// lines is byte-exact and a change of line ending alone counts as a change of that line.
public enum LineDiff {
    /// The most edits Myers' search explores before giving up. Its trace grows with the square
    /// of the edit distance, so this bounds memory (about 64 MB); callers treat "too different"
    /// as a conflict, which keeps both versions rather than guessing.
    public static let maxEditDistance = 4_000

    /// Splits `bytes` into line ranges, each including its `\n` terminator.
    public static func lines(_ bytes: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            result.append(start..<(index + 1))
            start = index + 1
        }
        if start < bytes.count { result.append(start..<bytes.count) }
        return result
    }

    /// For each element of `a`, the index of the element of `b` it is matched with in a longest
    /// common subsequence, or `-1`; `nil` when the two differ by more than `maxEditDistance`.
    public static func match(_ a: [Int], _ b: [Int], maxEditDistance: Int = maxEditDistance) -> [Int]? {
        var result = [Int](repeating: -1, count: a.count)
        // Common prefix and suffix are matched directly: most edits touch a few lines of a long note.
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] {
            result[prefix] = prefix
            prefix += 1
        }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            result[a.count - 1 - suffix] = b.count - 1 - suffix
            suffix += 1
        }
        let middleA = Array(a[prefix..<(a.count - suffix)])
        let middleB = Array(b[prefix..<(b.count - suffix)])
        guard let pairs = myers(middleA, middleB, maxEditDistance: maxEditDistance) else { return nil }
        for (x, y) in pairs { result[prefix + x] = prefix + y }
        return result
    }

    /// The matched index pairs of a shortest edit script from `a` to `b`.
    private static func myers(_ a: [Int], _ b: [Int], maxEditDistance: Int) -> [(Int, Int)]? {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return [] }
        let maxD = n + m
        guard maxD > 0 else { return [] }
        let offset = maxD + 1
        var v = [Int32](repeating: 0, count: 2 * maxD + 3)
        // trace[d] holds v[k] for k in -d...d as it was before step d (only that window is read back).
        var trace: [[Int32]] = []
        var finalD = -1
        search: for d in 0...maxD {
            if d > maxEditDistance { return nil }
            trace.append(Array(v[(offset - d)...(offset + d)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = Int(v[offset + k + 1])
                } else {
                    x = Int(v[offset + k - 1]) + 1
                }
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = Int32(x)
                if x >= n, y >= m {
                    finalD = d
                    break search
                }
            }
        }
        guard finalD >= 0 else { return nil }
        var pairs: [(Int, Int)] = []
        var x = n, y = m
        for d in stride(from: finalD, to: 0, by: -1) {
            let previous = trace[d]
            func at(_ k: Int) -> Int { Int(previous[k + d]) }  // window starts at k = -d
            let k = x - y
            let previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            let previousX = at(previousK)
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                x -= 1
                y -= 1
                pairs.append((x, y))
            }
            x = previousX
            y = previousY
        }
        while x > 0, y > 0 {
            x -= 1
            y -= 1
            pairs.append((x, y))
        }
        return pairs
    }
}
