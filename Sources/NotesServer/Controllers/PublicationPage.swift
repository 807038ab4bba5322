import Foundation
import NotesCore

/// The pages an anonymous reader gets under `/p/`: a published note, and the one "not found"
/// page for every link that does not work (unknown, revoked, expired, deleted note), so a
/// reader cannot tell those apart.
///
/// A page is standalone: no script, no other request but the images the note embeds, its
/// stylesheet inline and allowed by its hash alone. It shows the note's text under a quiet
/// header (its title and the day it last changed) and nothing of the account: no ids, no paths,
/// no history, no navigation.
enum PublicationPage {
    /// The published note, rendered now from its current text as the owner's other pages render
    /// it (`NoteRendering`; see `PublicationLinks` for where its links may lead, and its tags
    /// are not links), titled by its front matter's `title`, else its first heading, else its
    /// file name. `paths` are the owner's live paths, which its wiki links resolve against.
    static func published(_ note: PublishedNote, links: PublicationLinks, rendering: NoteRendering, paths: () throws -> [String]) throws -> HTTPResponse {
        let rendered = try rendering.render(note.content, notePath: note.path, paths: paths, links: .publicPage(treat: links.treat))
        let fileName = String(note.path.split(separator: "/").last ?? "")
        let title = rendered.title(orFileName: fileName)
        let updated = WireTime.string(fromMilliseconds: note.updatedAt)
        let header = """
            <header class="page-header"><span class="page-title">\(HTMLEscaping.escape(title))</span> \
            <span class="page-date">Updated <time datetime="\(updated)">\(updated.prefix(10))</time></span></header>

            """
        return response(status: 200, title: title, header: header, body: rendered.html, indexable: note.indexable)
    }

    /// The 404 page: the same bytes and headers whatever the reason.
    static let notFound = response(status: 404, title: "Not found", body: """
        <h1>Not found</h1>
        <p>There is no published note at this address. The link may be mistyped, or its owner may have
        withdrawn it, or it expired.</p>

        """, indexable: false)

    /// The 429 page, with `Retry-After` as the rate limiter says.
    static func tooManyRequests(_ refusal: HTTPError) -> HTTPResponse {
        var page = response(status: 429, title: "Too many requests", body: """
            <h1>Too many requests</h1>
            <p>This address has asked for too many pages in a short time. Wait a minute and reload.</p>

            """, indexable: false)
        for (name, value) in refusal.headers { page.headers[name] = value }
        return page
    }

    /// The 503 page while the server renders too many large notes (`RenderWorker`), with its `Retry-After`.
    static func busy(_ refusal: HTTPError) -> HTTPResponse {
        var page = response(status: 503, title: "Busy", body: """
            <h1>Busy</h1>
            <p>The server is busy rendering notes. Wait a moment and reload.</p>

            """, indexable: false)
        for (name, value) in refusal.headers { page.headers[name] = value }
        return page
    }

    /// The page around `body` with the headers every `/p/` answer carries.
    private static func response(status: Int, title: String, header: String = "", body: String, indexable: Bool) -> HTTPResponse {
        var html = """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">

            """
        if !indexable { html += "<meta name=\"robots\" content=\"noindex\">\n" }
        html += "<title>\(HTMLEscaping.escape(title))</title>\n<style>\(stylesheet)</style>\n</head>\n<body>\n"
        html += header
        html += "<main>\n"
        html += body
        html += "</main>\n<footer class=\"page-footer\">Published with Notes</footer>\n</body>\n</html>\n"
        var headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            // Never kept by any cache: a revoked link or an edit must show at the next load.
            "Cache-Control": "no-store",
        ]
        if !indexable { headers["X-Robots-Tag"] = "noindex" }
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    /// The stylesheet of every rendered note (readable on a phone, dark when the system is, clean
    /// on paper), so a published note looks as it does exported, and the frame around it: room
    /// above the header, the header and footer set apart by a hairline, paper margins. Inline
    /// and allowed by its hash in the policy: no other style can apply, and no second request is
    /// needed.
    static let stylesheet = NotesStylesheet.css + frameStylesheet

    private static let frameStylesheet = """
        body { padding-top: 2.5rem; }
        .page-header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline;
          gap: 0.25rem 1rem; color: var(--muted); font-size: 0.875rem; padding-bottom: 0.75rem;
          margin-bottom: 2.25rem; border-bottom: 1px solid var(--rule); }
        .page-title { color: var(--text); font-weight: 600; overflow-wrap: anywhere; }
        .page-footer { margin-top: 3.5rem; padding-top: 0.75rem; border-top: 1px solid var(--rule);
          color: var(--muted); font-size: 0.8rem; }
        @media (max-width: 30rem) { body { padding-top: 1.5rem; } .page-header { margin-bottom: 1.5rem; } }
        @media print {
          @page { margin: 2cm 2.2cm; }
          body { padding: 0; }
          .page-header { margin-bottom: 1.5rem; font-size: 9pt; }
          .page-footer { display: none; }
        }

        """

    /// Nothing but this page's own stylesheet and images from this server (the note's embedded
    /// attachments, through the publication) or inline in the note; no script of any kind, no
    /// forms, no `<base>`, and never inside a frame.
    static let contentSecurityPolicy = """
        default-src 'none'; style-src 'sha256-\(Data(SHA256.digest(of: Array(stylesheet.utf8))).base64EncodedString())'; \
        img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'
        """
}
