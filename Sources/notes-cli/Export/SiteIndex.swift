import NotesCore

/// The `index.html` of an exported site: every note by folder, top-level notes first, each
/// listed by title with its file name beside it.
struct SiteIndex: Sendable {
    /// One note on the index.
    struct Entry: Sendable {
        var path: NotePath
        var title: String
    }

    var siteTitle: String
    /// The notes, sorted by path.
    var entries: [Entry]
    /// The rendered top-level `index.md`, shown above the listing, when there is one.
    var home: RenderedMarkdown?
    /// The list of tags (`TagPages.indexSection()`), under the notes.
    var tagSection = ""

    /// The index as a page of the site.
    func page() -> HTMLPage {
        var body = ""
        if let home {
            body += home.html
        } else {
            body += "<h1>\(HTMLEscaping.escape(siteTitle))</h1>\n"
        }
        body += "<div class=\"notes-index\">\n"
        if entries.isEmpty { body += "<p>No notes.</p>\n" }
        // Group by folder; sorting by (folder, file name) keeps a folder's notes together even
        // where a sibling's name sorts between them (`a/x.md`, `a-b.md`, `a/y.md`).
        // Each key made once, not twice per comparison.
        let sorted = entries.map { (folder: $0.path.folder, fileName: $0.path.fileName, entry: $0) }
            .sorted { ($0.folder, $0.fileName) < ($1.folder, $1.fileName) }
        var currentFolder: String?
        for (folder, fileName, entry) in sorted {
            if folder != currentFolder {
                if currentFolder != nil { body += "</ul>\n" }
                if !folder.isEmpty {
                    body += "<h2 id=\"\(SitePaths.folderAnchor(folder))\">\(HTMLEscaping.escape(folder))/</h2>\n"
                }
                body += "<ul>\n"
                currentFolder = folder
            }
            let href = SitePaths.href(from: SitePaths.index, to: SitePaths.page(for: entry.path))
            body += "<li><a href=\"\(href)\">\(HTMLEscaping.escape(entry.title))</a>"
                + " <span class=\"file\">\(HTMLEscaping.escape(fileName))</span></li>\n"
        }
        if currentFolder != nil { body += "</ul>\n" }
        body += "</div>\n"
        body += tagSection
        let title = home?.title ?? siteTitle
        return HTMLPage(title: title, bodyHTML: body, stylesheet: .linked(href: SitePaths.stylesheet))
    }
}
