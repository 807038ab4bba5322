import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// A signed-in user's note as each of the server's pages shows it: the API's fragment and
/// standalone page, the web app's note page, and its published page.
struct ServerRenderingFixture {
    let api: SignedInApp
    let browser: WebBrowser

    /// Signs a browser in as the app's user.
    static func make(_ api: SignedInApp) async throws -> ServerRenderingFixture {
        let browser = WebBrowser(api.app)
        try await browser.signIn()
        return ServerRenderingFixture(api: api, browser: browser)
    }

    /// The API's HTML fragment of note `id`, with `query` (`standalone`, `flavour`).
    func apiHTML(_ id: NoteID, query: [String: String] = [:]) async throws -> String {
        let response = await api.app.send("GET", "/v1/notes/\(id)/html", query: query, token: api.token)
        try #require(response.status == 200, "html answered \(response.status): \(response.text)")
        return response.text
    }

    /// The web app's page of note `id`, whole.
    func webPage(_ id: NoteID) async throws -> String {
        let page = await browser.get("/notes/\(id)")
        try #require(page.status == 200, "the note page answered \(page.status)")
        return page.body
    }

    /// The note's rendering inside the web app's page.
    func webBody(_ id: NoteID) async throws -> String {
        try Self.between("<article class=\"card note-body\" aria-label=\"Note\">\n", "\n</article>", in: try await webPage(id))
    }

    /// Publishes note `id` and returns its page, whole.
    func publishedPage(_ id: NoteID) async throws -> String {
        let publication = try await PublicationTests.publish(api.app, id, token: api.token)
        let page = try await PublicationTests.read(api.app, publication.url)
        try #require(page.status == 200, "the published page answered \(page.status)")
        return page.text
    }

    /// The note's rendering inside a published page.
    static func publishedBody(_ page: String) throws -> String {
        try between("<main>\n", "</main>", in: page)
    }

    /// The text of `html`'s `<title>`.
    static func title(of html: String) throws -> String {
        try between("<title>", "</title>", in: html)
    }

    static func between(_ start: String, _ end: String, in text: String) throws -> String {
        let open = try #require(text.range(of: start), "no \(start) in \(text)")
        let close = try #require(text.range(of: end, range: open.upperBound..<text.endIndex), "no \(end) after \(start)")
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// `html` with every link and image target emptied and tags unlinked: what is left is what
    /// the same note must render to on every page.
    static func withoutLinkTargets(_ html: String) -> String {
        withTasksDisabled(html).replacingOccurrences(of: #"<a class="tag" href="[^"]*">([^<]*)</a>"#, with: #"<span class="tag">$1</span>"#, options: .regularExpression)
            .replacingOccurrences(of: #" (href|src)="[^"]*""#, with: #" $1="""#, options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `html` with its headings' ids left out, as `notes render` writes headings.
    static func withoutHeadingIDs(_ html: String) -> String {
        html.replacingOccurrences(of: #"<h([1-6]) id="[^"]*">"#, with: "<h$1>", options: .regularExpression)
    }

    /// `html` with the web app's task checkboxes (controls of the page's tick form) written as
    /// every other page writes them, disabled: the one difference the note page adds on purpose.
    static func withTasksDisabled(_ html: String) -> String {
        html.replacingOccurrences(of: #"<input type="checkbox" class="task" form="note-tasks" name="done" value="\d+" checked>"#,
                                  with: #"<input type="checkbox" checked="" disabled="" />"#, options: .regularExpression)
            .replacingOccurrences(of: #"<input type="checkbox" class="task" form="note-tasks" name="done" value="\d+">"#,
                                  with: #"<input type="checkbox" disabled="" />"#, options: .regularExpression)
    }
}
