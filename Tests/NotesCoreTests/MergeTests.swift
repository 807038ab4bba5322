import NotesTestSupport
import Testing
@testable import NotesCore

@Suite("Three-way line merge")
struct MergeTests {
    private func merge(_ base: String, _ ours: String, _ theirs: String) -> String? {
        ThreeWayMerge.merge(base: base, ours: ours, theirs: theirs)
    }

    @Test func identicalOrOneSidedChangesTakeTheChange() {
        #expect(merge("a\nb\n", "a\nb\n", "a\nb\n") == "a\nb\n")
        #expect(merge("a\nb\n", "a\nX\n", "a\nb\n") == "a\nX\n")
        #expect(merge("a\nb\n", "a\nb\n", "a\nY\n") == "a\nY\n")
        #expect(merge("a\nb\n", "same\n", "same\n") == "same\n")
    }

    @Test func editsInSeparateRegionsMergeOnBothSides() {
        let base = "one\ntwo\nthree\nfour\nfive\n"
        let ours = "ONE\ntwo\nthree\nfour\nfive\n"
        let theirs = "one\ntwo\nthree\nfour\nFIVE\n"
        #expect(merge(base, ours, theirs) == "ONE\ntwo\nthree\nfour\nFIVE\n")
        #expect(merge(base, theirs, ours) == "ONE\ntwo\nthree\nfour\nFIVE\n")
    }

    @Test func insertionsAndDeletionsInSeparateRegionsMerge() {
        let base = "a\nb\nc\nd\ne\n"
        let ours = "start\na\nb\nc\nd\ne\n"  // insert at top
        let theirs = "a\nb\nc\ne\n"  // delete d
        #expect(merge(base, ours, theirs) == "start\na\nb\nc\ne\n")
    }

    @Test func overlappingEditsConflict() {
        #expect(merge("a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n") == nil)
        // An append on one side and an edit of the last line on the other is not two appends.
        #expect(merge("a\nb\n", "a\nb\nmine\n", "a\nB\ntheirs\n") == nil)
    }

    @Test func appendsOnBothSidesKeepBothServerFirst() {
        // ours is the local text, theirs the server's: the server's addition comes first.
        #expect(merge("a\n", "a\nmine\n", "a\ntheirs\n") == "a\ntheirs\nmine\n")
        #expect(merge("# Journal\n", "# Journal\nmine 1\nmine 2\n", "# Journal\ntheirs\n")
                == "# Journal\ntheirs\nmine 1\nmine 2\n")
        // Identical additions are kept once.
        #expect(merge("a\n", "a\nsame\n", "a\nsame\n") == "a\nsame\n")
        // A base without a final newline gets one between the additions, never a blank line.
        #expect(merge("day 1", "day 1\nmine", "day 1\ntheirs") == "day 1\ntheirs\nmine")
        #expect(merge("a\n", "a\nmine", "a\ntheirs") == "a\ntheirs\nmine")
        // An empty base is two unrelated texts, not two appends.
        #expect(merge("", "mine\n", "theirs\n") == nil)
    }

    @Test func adjacentEditsConflictAsInGit() {
        #expect(merge("1\n2\n3\n4\n", "1\nX\n3\n4\n", "1\n2\nY\n4\n") == nil)
    }

    @Test func sameInsertionOnBothSidesIsNotAConflict() {
        #expect(merge("a\nc\n", "a\nb\nc\n", "a\nb\nc\n") == "a\nb\nc\n")
        #expect(merge("a\nc\nd\ne\n", "a\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n") == "a\nb\nc\nd\nE\n")
    }

    @Test func lineEndingsStayByteExact() {
        let base = "a\r\nb\r\nc\r\nd\r\n"
        let ours = "A\r\nb\r\nc\r\nd\r\n"
        let theirs = "a\r\nb\r\nc\r\nD"  // last line loses its ending
        let merged = ThreeWayMerge.merge(base: Array(base.utf8), ours: Array(ours.utf8), theirs: Array(theirs.utf8))
        #expect(merged == .clean(Array("A\r\nb\r\nc\r\nD".utf8)))
        // A change of line ending alone is a change of that line.
        #expect(merge("a\nb\nc\n", "a\r\nb\nc\n", "a\nb\nC\n") == "a\r\nb\nC\n")
    }

    @Test func emptyTextsAndMissingFinalNewline() {
        #expect(merge("", "", "x") == "x")
        #expect(merge("", "x\n", "") == "x\n")
        #expect(merge("", "x\n", "y\n") == nil)
        #expect(merge("a\nb", "a\nb\nc", "A\nb") == nil)  // b's ending changed next to A
        #expect(merge("a\nb\nc", "a\nb\nc\nd", "A\nb\nc") == "A\nb\nc\nd")
    }

    @Test func unicodeAndBinaryLikeBytesSurvive() {
        let base: [UInt8] = Array("é\n\u{0}x\n🙂\n".utf8)
        var ours = base
        ours.insert(contentsOf: Array("new\n".utf8), at: 0)
        var theirs = base
        theirs.append(contentsOf: Array("tail\n".utf8))
        #expect(ThreeWayMerge.merge(base: base, ours: ours, theirs: theirs) == .clean(Array("new\né\n\u{0}x\n🙂\ntail\n".utf8)))
    }

    @Test func largeNotesMergeQuickly() {
        let lines = (0..<50_000).map { "line \($0) of a long note\n" }
        let base = lines.joined()
        var oursLines = lines
        oursLines[10] = "edited near the top\n"
        var theirsLines = lines
        theirsLines[49_000] = "edited near the end\n"
        theirsLines.insert("inserted\n", at: 30_000)
        let merged = merge(base, oursLines.joined(), theirsLines.joined())
        var expected = lines
        expected[10] = "edited near the top\n"
        expected[49_000] = "edited near the end\n"
        expected.insert("inserted\n", at: 30_000)
        #expect(merged == expected.joined())
    }

    @Test func notesWithTooManyLinesAreAConflictNotAMemorySpike() {
        let lines = Array(repeating: "x\n", count: ThreeWayMerge.maxLines / 3 + 1)
        var ours = lines, theirs = lines
        ours[0] = "top\n"
        theirs[lines.count - 1] = "end\n"
        #expect(merge(lines.joined(), ours.joined(), theirs.joined()) == nil)
        #expect(merge(lines.joined(), ours.joined(), lines.joined()) == ours.joined())  // one side alone needs no merge
    }

    @Test func textsTooFarApartAreAConflictNotAGuess() {
        let base = (0..<100).map { "b\($0)\n" }.joined()
        let ours = (0..<100).map { "o\($0)\n" }.joined()
        let theirs = (0..<100).map { "t\($0)\n" }.joined()
        #expect(merge(base, ours, theirs) == nil)
        #expect(LineDiff.match(Array(0..<50), Array(100..<150), maxEditDistance: 10) == nil)
    }

    @Test func matchIsALongestCommonSubsequence() throws {
        let a = [1, 2, 3, 4, 5, 6, 7]
        let b = [2, 3, 9, 5, 7, 8]
        let m = try #require(LineDiff.match(a, b))
        let matched = m.enumerated().filter { $0.element >= 0 }
        #expect(matched.count == 4)  // 2 3 5 7
        for (i, j) in matched { #expect(a[i] == b[j]) }
        let js = matched.map(\.element)
        #expect(js == js.sorted())
    }

    @Test(arguments: 0..<40)
    func randomEditsOnOneSideAlwaysMergeToThatSide(seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed))
        let base = (0..<Int(rng.next() % 30)).map { _ in "l\(rng.next() % 8)\n" }
        var ours = base
        for _ in 0..<Int(rng.next() % 6) {
            let at = ours.isEmpty ? 0 : Int(rng.next() % UInt64(ours.count))
            switch rng.next() % 3 {
            case 0: ours.insert("n\(rng.next() % 8)\n", at: at)
            case 1 where !ours.isEmpty: ours.remove(at: at)
            default: if !ours.isEmpty { ours[at] = "c\(rng.next() % 8)\n" }
            }
        }
        #expect(merge(base.joined(), ours.joined(), base.joined()) == ours.joined())
        #expect(merge(base.joined(), base.joined(), ours.joined()) == ours.joined())
    }
}
