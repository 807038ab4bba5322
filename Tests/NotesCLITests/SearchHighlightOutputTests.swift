import NotesCore
import Testing
@testable import notes_cli

/// `notes search` draws the server's highlight ranges: bold on a terminal, plain when piped.
@Suite("Search highlight output")
struct SearchHighlightOutputTests {
    private let hit = SearchResults.Hit(id: NoteID(), path: "a.md", text: "the **real** fox\u{1B}[2J\nran",
                                        highlights: [SearchHighlight(start: 13, end: 16)], rev: 1)

    @Test("on a terminal the matched words are bold and the note's own ** stays as typed")
    func boldOnTerminal() {
        #expect(SearchCommand.snippet(hit, bold: true) == "the **real** \u{1B}[1mfox\u{1B}[22m\\u{1b}[2J ran")
    }

    @Test("piped, the snippet is the plain text on one line with control characters visible")
    func plainWhenPiped() {
        #expect(SearchCommand.snippet(hit, bold: false) == "the **real** fox\\u{1b}[2J ran")
    }

    @Test("a snippet of megabytes from any server prints as a few hundred characters around the match")
    func longSnippetIsCut() {
        let text = String(repeating: "x", count: 5_000_000) + " fox " + String(repeating: "y", count: 5_000_000)
        let long = SearchResults.Hit(id: NoteID(), path: "a.md", text: text, highlights: [SearchHighlight(start: 5_000_001, end: 5_000_004)], rev: 1)
        let printed = SearchCommand.snippet(long, bold: true)
        #expect(printed.unicodeScalars.count < 400)
        #expect(printed.contains(" \u{1B}[1mfox\u{1B}[22m "))
        #expect(printed.hasPrefix("…xxx") && printed.hasSuffix("yyy…"))
    }
}
