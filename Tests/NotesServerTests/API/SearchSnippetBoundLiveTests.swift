import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Search answers stay small whatever the notes hold: each snippet is a few hundred characters
/// around its match. Over real HTTP, on either backend.
@Suite("Notes API: bounded search snippets")
struct SearchSnippetBoundLiveTests {
    @Test("a note with one 5 MB line gets a snippet of a few hundred characters around the match, and a small answer")
    func longLineSnippetIsBounded() async throws {
        try await LiveServer.with { _, api in
            let long = String(repeating: "x", count: 2_500_000) + " the quick fox " + String(repeating: "y", count: 2_500_000) + "\n"
            let note = try await api.create("long.md", long)
            // One word longer than the snippet (PostgreSQL indexes words of up to 2,047 bytes).
            let oneWord = try await api.create("word.md", "fox" + String(repeating: "z", count: 2_000) + "\n")
            let response = try await api.send("GET", "/v1/search", query: [("q", "fox")])
            #expect(response.status == 200)
            #expect(response.body.count < 8_000, "the answer is \(response.body.count) bytes")
            let hits = try response.decode(SearchResults.self).results
            let hit = try #require(hits.first { $0.id == note.id })
            let scalars = Array(hit.text.unicodeScalars)
            #expect(scalars.count <= SearchResults.Hit.maxSnippetScalars)
            #expect(hit.text.hasPrefix("…x") && hit.text.hasSuffix("y…"))
            #expect(hit.highlights.map { String(String.UnicodeScalarView(scalars[$0.start..<$0.end])) } == ["fox"])
            #expect(hit.snippet.contains(" the quick **fox** "))

            let prefixed = try await api.send("GET", "/v1/search", query: [("q", "fox*")]).decode(SearchResults.self).results
            let word = try #require(prefixed.first { $0.id == oneWord.id })
            #expect(word.text.unicodeScalars.count <= SearchResults.Hit.maxSnippetScalars, "one long word is cut too")
            #expect(word.text.hasPrefix("foxzzz") && word.text.hasSuffix("z…"))
            #expect(word.highlights.allSatisfy { $0.start >= 0 && $0.end <= word.text.unicodeScalars.count })
        }
    }
}
