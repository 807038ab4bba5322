import Foundation
import NotesCore

/// `/tags`: every tag of the user's notes with how many notes carry it, and `/tags/NAME`: the
/// notes carrying a tag or one nested under it, where a rendered note's `#tag` leads
/// (`NoteRendering.tagPage`). See `NoteTags` for what is read.
struct TagPages: Sendable {
    let services: WebServices

    /// The longest tag name a page is asked for.
    static let maxTagBytes = 256

    func register(in app: inout WebApp) {
        app.add("GET", "/tags") { context in .now(try list(context)) }
        app.add("GET", "/tags/*name") { context in .now(try tag(context)) }
    }

    private func list(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let counts = try NoteTags(userID: session.userID, store: services.notes).counts
        let items = counts.map { entry -> HTML in
            """
            <li><a class="tag" href="\(Self.address(of: entry.tag))">#\(entry.tag)</a> \
            <span class="muted small">\(entry.notes) \(entry.notes == 1 ? "note" : "notes")</span></li>
            """
        }
        return WebResponse.page(context.layout("Tags", .notes), """
            <div class="page-head"><h1>Tags</h1></div>
            <section class="card" aria-label="Tags">
            \(counts.isEmpty ? "<p class=\"empty\">No note carries a tag yet. Write <code>#tag</code> in a note, or <code>tags:</code> in its front matter.</p>" : "<ul class=\"list\">\(items)</ul>" as HTML)
            </section>
            """)
    }

    private func tag(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        guard let name = context.parameters["name"], Self.isPlausibleTag(name) else {
            throw HTTPError.notFound("There is no such tag.")
        }
        let tags = try NoteTags(userID: session.userID, store: services.notes)
        let notes = tags.notes(tagged: name)
        let nested = tags.counts.filter { $0.tag.lowercased().hasPrefix(name.lowercased() + "/") }
        let items = notes.map { note -> HTML in
            """
            <li><a class="title" href="\(WebFormat.notePath(note.id))">\(name: WebFormat.title(ofPath: note.path))</a>\
            <span class="muted small">\(name: note.path)</span></li>
            """
        }
        let nestedItems = nested.map { entry -> HTML in "<li><a class=\"tag\" href=\"\(Self.address(of: entry.tag))\">#\(entry.tag)</a></li>" }
        return WebResponse.page(context.layout("#" + name, .notes), """
            <div class="page-head"><div><p class="crumbs"><a href="/tags">Tags</a></p><h1>#\(name)</h1></div></div>
            <section class="card" aria-label="Notes">
            \(notes.isEmpty ? "<p class=\"empty\">No note carries this tag.</p>" : "<ul class=\"list\">\(items)</ul>" as HTML)
            </section>
            \(nested.isEmpty ? HTML.empty : "<section class=\"card\" aria-labelledby=\"nested-heading\"><h2 id=\"nested-heading\">Nested tags</h2><ul class=\"list\">\(nestedItems)</ul></section>")
            """)
    }

    /// The page of `tag`: each of its `/`-separated parts a path segment.
    static func address(of tag: String) -> WebPath {
        tag.split(separator: "/").reduce(WebPath("/tags")) { $0.appending(String($1)) }
    }

    /// Whether `name` could be a tag at all: not empty, not too long, no control character.
    static func isPlausibleTag(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxTagBytes && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
