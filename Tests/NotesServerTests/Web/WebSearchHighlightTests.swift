import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// Search results carry plain text with highlight ranges instead of `**` markers.
@Suite("Web search highlights")
struct WebSearchHighlightTests {
    @Test("the API answers plain text with ranges in Unicode scalars, and the old snippet for old clients")
    func apiCarriesRanges() async throws {
        try await TestApp.with { app in
            _ = try app.addNote("Ü.md", "Grüße **from** the wörld of wörlds\n")
            let token = try await app.signIn().accessToken
            let hit = try #require(try await app.send("GET", "/v1/search", query: ["q": "wörld*"], token: token).decode(SearchResults.self).results.first)
            #expect(hit.text == "Grüße **from** the wörld of wörlds\n")
            let scalars = Array(hit.text.unicodeScalars)
            let words = hit.highlights.map { String(String.UnicodeScalarView(scalars[$0.start..<$0.end])) }
            #expect(words == ["wörld", "wörlds"])
            #expect(hit.snippet == "Grüße **from** the **wörld** of **wörlds**\n")
        }
    }

    @Test("an old server's snippet decodes into text and highlights")
    func oldSnippetDecodes() throws {
        let json = #"{"results":[{"id":"8a4c3a0e-5a7e-4c51-9d1b-6d0b1f2f6a10","path":"a.md","rev":1,"snippet":"the **fox** ran"}]}"#
        let hit = try #require(try WireJSON.decoder().decode(SearchResults.self, from: Data(json.utf8)).results.first)
        #expect(hit.text == "the fox ran" && hit.highlights == [SearchHighlight(start: 4, end: 7)])
    }

    @Test("ranges out of bounds, reversed or overlapping are clipped, never a crash")
    func hostileRangesAreClipped() {
        let pieces = SearchHighlight.pieces("abcdef", [.init(start: 4, end: 2), .init(start: 1, end: 3), .init(start: 2, end: 99), .init(start: -5, end: 1)])
        #expect(pieces.map(\.text).joined() == "abcdef")
        #expect(pieces.filter(\.highlighted).map(\.text) == ["ef"], "each range starts where the last ended at the earliest")
    }

    @Test("the search page shows a few hundred characters around the match of a note that is one line of megabytes")
    func longLineSnippetOnThePage() async throws {
        try await TestApp.with { app in
            _ = try app.addNote("Long.md", String(repeating: "x", count: 2_000_000) + " tomatoes " + String(repeating: "y", count: 2_000_000) + "\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let page = await browser.get("/search", query: ["q": "tomatoes"])
            #expect(page.status == 200)
            #expect(page.body.utf8.count < 40_000, "the page is \(page.body.utf8.count) bytes")
            #expect(page.body.contains("x <mark>tomatoes</mark> y"))
        }
    }
}
