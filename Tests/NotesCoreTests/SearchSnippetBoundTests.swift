import Testing
@testable import NotesCore

/// A search hit's snippet is a few hundred characters around its match, whatever it was cut from.
@Suite("Search snippet bound")
struct SearchSnippetBoundTests {
    private func hit(_ text: String, _ highlights: [SearchHighlight]) -> SearchResults.Hit {
        SearchResults.Hit(id: NoteID(), path: "a.md", text: text, highlights: highlights, rev: 1)
    }

    private func highlighted(_ hit: SearchResults.Hit) -> [String] {
        SearchHighlight.pieces(hit.text, hit.highlights).filter(\.highlighted).map(\.text)
    }

    @Test("a snippet within the bound is kept as it is")
    func shortSnippetIsKept() {
        let short = hit("the quick fox", [SearchHighlight(start: 10, end: 13)])
        #expect(short.boundingSnippet() == short)
        let exact = hit(String(repeating: "a", count: 300), [])
        #expect(exact.boundingSnippet() == exact)
    }

    @Test("a long snippet keeps the match, a third of the room before it, and marks both cuts")
    func longSnippetIsCutAroundTheMatch() {
        let text = String(repeating: "x", count: 10_000) + "fox" + String(repeating: "y", count: 10_000)
        let cut = hit(text, [SearchHighlight(start: 10_000, end: 10_003)]).boundingSnippet()
        let scalars = Array(cut.text.unicodeScalars)
        #expect(scalars.count == 300)
        #expect(cut.text.hasPrefix("…x") && cut.text.hasSuffix("y…"))
        #expect(highlighted(cut) == ["fox"])
        #expect(cut.highlights == [SearchHighlight(start: 1 + 298 / 3, end: 1 + 298 / 3 + 3)])
        #expect(cut.snippet.contains("x**fox**y"), "the old clients' field is cut alike")
    }

    @Test("a match near either end fills the room from that end, with one ellipsis")
    func matchNearAnEnd() {
        let first = hit("fox" + String(repeating: "y", count: 1_000), [SearchHighlight(start: 0, end: 3)]).boundingSnippet()
        #expect(first.text.hasPrefix("foxyyy") && first.text.hasSuffix("y…") && first.text.unicodeScalars.count == 299)
        #expect(highlighted(first) == ["fox"])
        let last = hit(String(repeating: "x", count: 1_000) + "fox", [SearchHighlight(start: 1_000, end: 1_003)]).boundingSnippet()
        #expect(last.text.hasPrefix("…x") && last.text.hasSuffix("xfox") && last.text.unicodeScalars.count == 299)
        #expect(highlighted(last) == ["fox"])
    }

    @Test("a match longer than the room is cut with it; highlights past the cut are dropped")
    func longMatchAndLaterHighlights() {
        let text = String(repeating: "f", count: 5_000) + " and then fox"
        let cut = hit(text, [SearchHighlight(start: 0, end: 5_000), SearchHighlight(start: 5_010, end: 5_013)]).boundingSnippet()
        #expect(cut.text.unicodeScalars.count == 299)
        #expect(cut.highlights == [SearchHighlight(start: 0, end: 298)])
    }

    @Test("without highlights, or with hostile ones, the cut is from the start and never crashes")
    func hostileHighlights() {
        let text = String(repeating: "é", count: 1_000)
        for highlights in [[], [SearchHighlight(start: -5, end: 2)], [SearchHighlight(start: 9_999, end: 10_005)], [SearchHighlight(start: 700, end: 600)]] {
            let cut = hit(text, highlights).boundingSnippet()
            #expect(cut.text.unicodeScalars.count <= 300)
            #expect(cut.highlights.allSatisfy { 0 <= $0.start && $0.start < $0.end && $0.end <= 300 })
        }
    }
}
