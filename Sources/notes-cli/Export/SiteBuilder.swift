import Foundation
import NotesCore

/// One file of the exported site: where it goes (relative to OUTDIR) and its exact bytes.
struct SiteFile: Sendable {
    var path: String
    var bytes: Data
}

/// The whole site for a set of notes, built in memory: a pure function of the notes, so the
/// same notes give the same bytes whatever the filesystem order or the time of day.
struct Site: Sendable {
    /// Pages, the index and the stylesheet, sorted by path.
    var files: [SiteFile]
    /// Links to notes that do not exist, in note order.
    var missingLinks: [LinkRewriter.MissingLink]
}

/// Renders notes into a `Site`: one page per note at the mirrored path, `index.html` listing
/// every note by folder with its title, and `style.css`.
struct SiteBuilder: Sendable {
    /// The site's name: the index page's title and heading.
    var title: String = "Notes"

    /// Builds the site for `notes` (sorted by path, each path once, as `ExportSource` gives them).
    /// - Throws: `CLIError` when two outputs need the same place (a folder named like a file).
    func build(_ notes: [ExportNote]) throws(CLIError) -> Site {
        let rewriter = LinkRewriter(notes: notes.map(\.path))
        var files: [SiteFile] = []
        var missing: [LinkRewriter.MissingLink] = []
        var entries: [SiteIndex.Entry] = []
        var homeNote: RenderedMarkdown?
        files.reserveCapacity(notes.count + 2)
        entries.reserveCapacity(notes.count)
        for note in notes {
            let rendered = MarkdownRenderer.safe.render(note.content) { destination in
                switch rewriter.outcome(for: destination.url, in: note.path) {
                case .keep: return nil
                case .rewrite(let href): return href
                case .missing(let reason):
                    missing.append(LinkRewriter.MissingLink(note: note.path, destination: destination.url, reason: reason))
                    return nil
                }
            }
            let title = rendered.title(orFileName: note.path.fileName)
            entries.append(SiteIndex.Entry(path: note.path, title: title))
            let pagePath = SitePaths.page(for: note.path)
            // A top-level index.md is the home page: its page is the index, with the listing under it.
            if pagePath == SitePaths.index {
                homeNote = rendered
                continue
            }
            let page = HTMLPage(title: title, bodyHTML: rendered.html,
                                stylesheet: .linked(href: SitePaths.href(from: pagePath, to: SitePaths.stylesheet)),
                                indexHref: SitePaths.href(from: pagePath, to: SitePaths.index))
            files.append(SiteFile(path: pagePath, bytes: Data(page.render().utf8)))
        }
        let index = SiteIndex(siteTitle: title, entries: entries, home: homeNote).page()
        files.append(SiteFile(path: SitePaths.index, bytes: Data(index.render().utf8)))
        files.append(SiteFile(path: SitePaths.stylesheet, bytes: Data(NotesStylesheet.css.utf8)))
        files.sort { $0.path < $1.path }
        try Self.checkNoClashes(files)
        return Site(files: files, missingLinks: missing)
    }

    /// Fails when one output path is also a folder of another (a note folder named `style.css`),
    /// since the filesystem cannot hold both.
    private static func checkNoClashes(_ files: [SiteFile]) throws(CLIError) {
        let paths = Set(files.map(\.path))
        for file in files {
            var folder = Substring(file.path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                if paths.contains(String(folder)) {
                    throw .failure("the folder \(folder)/ would replace the exported file \(folder); rename that folder")
                }
            }
        }
    }
}
