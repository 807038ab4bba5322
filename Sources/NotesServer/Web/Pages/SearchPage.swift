import Foundation
import NotesCore

/// `/search?q=`: full-text search with the matched words marked in each snippet.
struct SearchPage: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/search") { context in .now(try search(context)) }
    }

    private func search(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let query = String((context.request.query["q"] ?? "").trimmingCharacters(in: .whitespaces).prefix(500))
        var layout = context.layout(query.isEmpty ? "Search" : "Search: " + query, .search)
        layout.query = query
        guard !query.isEmpty else {
            return WebResponse.page(layout, "<div class=\"page-head\"><h1>Search</h1></div><p class=\"muted\">Type words in the search box; a word ending in <code>*</code> matches as a prefix, and <code>tag:NAME</code> finds the notes carrying a tag.</p>")
        }
        let hits = try services.notes.searchWithTagFilters(userID: session.userID, query: query, limit: 50).results
        let items = hits.map { hit -> HTML in
            """
            <li><a class="title" href="\(WebFormat.notePath(hit.id))">\(name: WebFormat.title(ofPath: hit.path))</a>\
            <span class="muted small">\(name: hit.path)</span><p class="snippet">\(Self.snippet(hit))</p></li>
            """
        }
        return WebResponse.page(layout, """
            <div class="page-head"><h1>Search: \(query)</h1><p class="muted">\(hits.count == 50 ? "The best 50 matches" : "\(hits.count) \(hits.count == 1 ? "match" : "matches")")</p></div>
            <section class="card" aria-label="Results">
            \(hits.isEmpty ? "<p class=\"empty\">No note matches.</p>" : "<ul class=\"list\">\(items)</ul>" as HTML)
            </section>
            """)
    }

    /// The snippet's text with each matched stretch in `<mark>`.
    static func snippet(_ hit: SearchResults.Hit) -> HTML {
        HTML.joined(SearchHighlight.pieces(hit.text, hit.highlights).map { piece in
            piece.highlighted ? "<mark>\(piece.text)</mark>" : "\(piece.text)"
        })
    }
}
