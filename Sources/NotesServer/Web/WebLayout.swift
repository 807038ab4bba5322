import Foundation
import NotesCore

/// The shared frame of every page: landmarks (header, nav, main, footer), a skip link, the
/// search box, the signed-in user's navigation and the assets, in one place so every page has
/// the same focus order: skip link, brand, search, navigation, then the page itself.
struct WebLayout: Sendable {
    /// Which navigation entry the page belongs to (marked `aria-current`).
    enum Section: Sendable {
        case notes, new, search, trash, account, none
    }

    /// Who is signed in, for the navigation and the sign-out form; nil on the sign-in page.
    struct Viewer: Sendable {
        let username: String
        let csrfToken: String
    }

    let title: String
    var section: Section = .none
    var viewer: Viewer?
    /// The search box's current words (on the search page).
    var query = ""
    /// What the page may show typeset besides what `content` already holds: the editor's live
    /// preview can show anything. A page loads KaTeX and highlight.js only for what it shows.
    var typesetting: PageAssets.Needs = []
    /// The shared space the page shows (its name, the reader's role, its links); nil in the
    /// account's own space.
    var space: WebSpace? = nil
    /// The spaces the reader can switch to.
    var spaces: [SpaceResource] = []

    /// The complete document around `content`.
    func render(_ content: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="same-origin">
        <meta name="robots" content="noindex">
        <title>\(title) · Notes</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="\(WebAsset.stylesheet.path)">
        <script src="\(WebAsset.script.path)" defer></script>
        <script src="\(WebAsset.uploadScript.path)" defer></script>
        \(typesettingAssets(for: content))</head>
        <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">
        <div class="bar">
        <a class="brand" href="/"><span class="brand-mark" aria-hidden="true">N</span>Notes</a>
        \(viewer == nil ? HTML.empty : searchBox)
        \(navigation)
        \(viewer == nil ? HTML.empty : WebSpaceSwitcher(current: space, spaces: spaces).render())
        </div>
        </header>
        <main id="main" tabindex="-1">
        \(space.map(WebSpaceSwitcher.banner) ?? .empty)
        \(space.map { HTML(rendered: WebSpaceLinks(base: $0.base).rewrite(content.description)) } ?? content)
        </main>
        <footer class="site-footer"><p class="muted small">Notes \(NotesVersion.current) · <a href="/v1/openapi.json">API document</a></p></footer>
        </body>
        </html>
        """
    }

    /// KaTeX's stylesheet and the scripts that typeset the math and code `content` (or the
    /// preview) shows, all served by this server under `/assets/`.
    private func typesettingAssets(for content: HTML) -> HTML {
        let needs = typesetting.union(PageAssets.Needs(bodyHTML: content.description))
        return needs.isEmpty ? .empty : HTML(rendered: PageAssets.installed.headHTML(for: needs, href: WebAsset.folder.value + "/"))
    }

    private var searchBox: HTML {
        """
        <form class="site-search" role="search" action="\(page("/search"))" method="get">
        <label class="visually-hidden" for="site-q">Search notes</label>
        <input type="search" id="site-q" name="q" value="\(query)" placeholder="Search notes" autocomplete="off">
        <button type="submit" class="secondary">Search</button>
        </form>
        """
    }

    private var navigation: HTML {
        guard let viewer else { return .empty }
        return """
        <nav class="site-nav" aria-label="Main">
        <ul>
        <li><a href="\(page("/"))"\(current(.notes))>Notes</a></li>
        \(space?.writes ?? true ? "<li><a href=\"\(page("/new"))\"\(current(.new))>New note</a></li>" as HTML : .empty)
        <li><a href="\(page("/trash"))"\(current(.trash))>Trash</a></li>
        <li><a href="/account"\(current(.account))>\(viewer.username)</a></li>
        <li><form action="/sign-out" method="post"><input type="hidden" name="csrf" value="\(viewer.csrfToken)"><button type="submit" class="link">Sign out</button></form></li>
        </ul>
        </nav>
        """
    }

    /// A page of the space the layout shows (`/new`, or `/s/<id>/new` in a shared space).
    private func page(_ path: String) -> String {
        WebSpace.address(path, in: space)
    }

    private func current(_ entry: Section) -> HTML {
        entry == section ? " aria-current=\"page\"" : ""
    }
}

/// Small pieces several pages share.
enum WebFormat {
    /// A time for people: `2026-12-01 11:05 UTC`, inside `<time>` with the exact instant.
    static func time(_ milliseconds: Int64) -> HTML {
        time(wire: WireTime.string(fromMilliseconds: milliseconds))
    }

    /// A wire timestamp (`2026-12-01T11:05:03.123Z`) for people.
    static func time(wire iso: String) -> HTML {
        "<time datetime=\"\(iso)\">\(plainTime(wire: iso))</time>"
    }

    /// A time for people as plain text (`2026-12-01 11:05 UTC`), for a sentence.
    static func plainTime(_ milliseconds: Int64) -> String {
        plainTime(wire: WireTime.string(fromMilliseconds: milliseconds))
    }

    private static func plainTime(wire iso: String) -> String {
        iso.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    /// A byte count for people.
    static func size(_ bytes: Int) -> String {
        bytes < 1024 ? "\(bytes) B" : bytes < 1024 * 1024 ? "\(bytes / 1024) KB" : "\(bytes / (1024 * 1024)) MB"
    }

    /// A note's title from its path: the file name without its note extension (`.md`, `.markdown`).
    static func title(ofPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = EntryKind.droppingNoteExtension(name)
        return stem.isEmpty ? name : stem
    }

    /// The folder part of a path (`a/b` for `a/b/c.md`), empty at the top.
    static func folder(ofPath path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    /// A notice box (`role=status`), or an error box (`role=alert`).
    static func notice(_ text: String, error: Bool = false) -> HTML {
        error ? "<p class=\"notice error\" role=\"alert\">\(text)</p>" : "<p class=\"notice\" role=\"status\">\(text)</p>"
    }

    /// The hidden CSRF field every form that changes something carries.
    static func csrfField(_ token: String) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(token)\">"
    }

    /// A note's page.
    static func notePath(_ id: NoteID) -> WebPath { WebPath("/notes").appending(id.value) }
}
