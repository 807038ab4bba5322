import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Full-text search and rendered HTML over real HTTP.
@Suite("Notes API: search and HTML")
struct SearchAndHTMLTests {
    @Test func searchFindsWordsAndPrefixesWithSnippets() async throws {
        try await LiveServer.with { _, api in
            let fox = try await api.create("animals/fox.md", "The quick brown fox jumps over the lazy dog.")
            let world = try await api.create("world.md", "Hello world, and peace.")
            let words = try await api.create("words.md", "A wordsmith at work.")
            let response = try await api.send("GET", "/v1/search", query: [("q", "fox")])
            #expect(response.status == 200)
            let hits = try response.decode(SearchResults.self).results
            #expect(hits.map(\.id) == [fox.id])
            #expect(hits.first?.path == "animals/fox.md" && hits.first?.rev == fox.rev)
            #expect(hits.first?.snippet.contains("**fox**") == true)

            let prefix = try await api.send("GET", "/v1/search", query: [("q", "wor*")]).decode(SearchResults.self)
            #expect(Set(prefix.results.map(\.id)) == [world.id, words.id])
            let both = try await api.send("GET", "/v1/search", query: [("q", "quick dog")]).decode(SearchResults.self)
            #expect(both.results.map(\.id) == [fox.id])
            let nothing = try await api.send("GET", "/v1/search", query: [("q", "zebra")]).decode(SearchResults.self)
            #expect(nothing.results.isEmpty)
            let limited = try await api.send("GET", "/v1/search", query: [("q", "wor*"), ("limit", "1")]).decode(SearchResults.self)
            #expect(limited.results.count == 1)

            try await api.delete(fox)
            let afterDelete = try await api.send("GET", "/v1/search", query: [("q", "fox")]).decode(SearchResults.self)
            #expect(afterDelete.results.isEmpty, "deleted notes are not found")
        }
    }

    @Test func searchQuerySyntaxNeverFails() async throws {
        try await LiveServer.with { _, api in
            try await api.create("a.md", "fox and \"quotes\" and col:on")
            let queries = ["\"", "fox\"", "AND", "OR fox", "NOT", "NEAR(fox", "*", "**", "-fox", "fox:", "col:on", "^fox",
                           "(", ")", "'", "\\", "%", "{fox}", "fox AND", "🎉", "\"fox", "fox*bar", "a\"b*"]
            for query in queries {
                let response = try await api.send("GET", "/v1/search", query: [("q", query)])
                #expect(response.status == 200, "q=\(query): \(response.text)")
                #expect((try? response.decode(SearchResults.self)) != nil, "q=\(query)")
            }
            for bad in ["", "   ", String(repeating: "x", count: 1001)] {
                let response = try await api.send("GET", "/v1/search", query: [("q", bad)])
                #expect(response.status == 400)
                #expect(response.errorCode == "invalid_parameter")
            }
            #expect(try await api.send("GET", "/v1/search").status == 400)
            // A NUL would cut a C string short, so the words searched would not be the words sent.
            for query in ["fox\u{0}", "\u{0}fox", "fox\u{0}bar"] {
                let nul = try await api.send("GET", "/v1/search", query: [("q", query)])
                #expect(nul.status == 400 && nul.errorCode == "invalid_query", "q=\(query.debugDescription)")
            }
        }
    }

    @Test func htmlFragmentIsSafeAndStandalonePageIsTheExportPageTitledByHeadingElseFileName() async throws {
        try await LiveServer.with { _, api in
            let markdown = "# Title\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) and *em*\n"
            let note = try await api.create("x<b>&\"q\".md", markdown)
            let fragment = try await api.send("GET", "/v1/notes/\(note.id)/html")
            #expect(fragment.status == 200)
            #expect(fragment.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(fragment.header("ETag") == "\"\(note.rev)\"")
            #expect(fragment.header("Content-Security-Policy") != nil)
            #expect(fragment.text.contains("<h1 id=\"title\">Title</h1>"))
            #expect(fragment.text.contains("<em>em</em>"))
            #expect(!fragment.text.lowercased().contains("<script"))
            #expect(!fragment.text.lowercased().contains("javascript:"))
            // A refused link is its text, not an `<a href="">` that looks live.
            #expect(fragment.text.contains("<p>click and <em>em</em></p>"))
            #expect(!fragment.text.contains("<a "))
            #expect(!fragment.text.contains("<html"))

            let page = try await api.send("GET", "/v1/notes/\(note.id)/html", query: [("standalone", "1")])
            #expect(page.status == 200)
            #expect(page.header("Content-Security-Policy") != nil)
            #expect(page.header("ETag") == "\"\(note.rev)\"")
            #expect(page.text == HTMLPage(title: "Title", bodyHTML: fragment.text).render(), "the page export makes, titled by the heading")
            #expect(!page.text.lowercased().contains("<script>"))

            // Without a heading the title is the file name without `.md`, escaped.
            let plain = try await api.create("folder/x<b>&\"q\".md", "no heading, just *words*\n")
            let untitled = try await api.send("GET", "/v1/notes/\(plain.id)/html", query: [("standalone", "1")])
            #expect(untitled.status == 200)
            #expect(untitled.text.contains("<title>x&lt;b&gt;&amp;&quot;q&quot;</title>"))
            #expect(untitled.text.contains("<em>words</em>"))
        }
    }

    @Test func htmlRenderedAtFirstReadIsKeptForItsRevisionOnlyAndFollowsEveryEdit() async throws {
        try await LiveServer.with { server, api in
            let note = try await api.create("kept.md", "# First\n")
            #expect(try TrashAndPurgeTests.keptRenderings(server.databaseLocation) == 0, "a write renders nothing")
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/html").text == "<h1 id=\"first\">First</h1>\n")
            #expect(try await waitUntil { try TrashAndPurgeTests.keptRenderings(server.databaseLocation) == 1 }, "the first read keeps its rendering")
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/html").text == "<h1 id=\"first\">First</h1>\n", "the kept copy is served")

            let edited = try await api.update(note, content: "# Second\n")
            #expect(try TrashAndPurgeTests.keptRenderings(server.databaseLocation) == 0, "an edit drops the old revision's rendering")
            let fresh = try await api.send("GET", "/v1/notes/\(note.id)/html")
            #expect(fresh.text == "<h1 id=\"second\">Second</h1>\n" && fresh.header("ETag") == "\"\(edited.rev)\"")
        }
    }

    @Test func usersNeverSeeEachOthersNotes() async throws {
        try await LiveServer.with { server, alice in
            try await server.addUser("bob", password: TestAccount.password)
            let bob = try await TestAPIClient(baseURL: server.baseURL).signedIn("bob", password: TestAccount.password)
            let secret = try await alice.create("secret.md", "alice's unicorn plans")
            let id = secret.id
            #expect(try await bob.send("GET", "/v1/notes/\(id)").status == 404)
            #expect(try await bob.send("GET", "/v1/notes/\(id)/html").status == 404)
            #expect(try await bob.send("GET", "/v1/notes/\(id)/revisions").status == 404)
            #expect(try await bob.send("GET", "/v1/notes/\(id)/revisions/\(secret.rev)").status == 404)
            #expect(try await bob.put(id, path: "secret.md", content: "mine", headers: ["If-Match": "\"\(secret.rev)\""]).status == 404)
            #expect(try await bob.send("DELETE", "/v1/notes/\(id)", headers: ["If-Match": "\"\(secret.rev)\""]).status == 404)
            #expect(try await bob.send("GET", "/v1/notes").decode(NoteListPage.self).notes.isEmpty)
            #expect(try await bob.send("GET", "/v1/changes").decode(ChangesPage.self).changes.isEmpty)
            #expect(try await bob.send("GET", "/v1/search", query: [("q", "unicorn")]).decode(SearchResults.self).results.isEmpty)
            let batch = BatchRequest(operations: [BatchOperation(op: .delete, id: id, ifMatch: secret.rev)])
            #expect(try await bob.send("POST", "/v1/batch", json: batch).decode(BatchResponse.self).results.map(\.status) == [404])
            // Bob may use the same path (and even the same id) for his own note without touching Alice's.
            let bobs = try await bob.create("secret.md", "bob's", id: id)
            #expect(bobs.content == nil && bobs.path == "secret.md")
            let still = try await alice.send("GET", "/v1/notes/\(id)").decode(NoteResource.self)
            #expect(still.content == "alice's unicorn plans" && still.rev == secret.rev)
        }
    }
}
