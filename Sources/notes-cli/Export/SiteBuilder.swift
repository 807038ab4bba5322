import Foundation
import NotesCore

/// One file of the exported site: where it goes (relative to OUTDIR) and its exact bytes.
struct SiteFile: Sendable {
    /// Where the bytes come from.
    enum Content: Sendable {
        /// Made by export (a page, the index, the stylesheet).
        case bytes(Data)
        /// A file of the notes folder, copied as is; read only when written, one at a time, so
        /// a folder of large images never sits in memory at once.
        case copy(of: URL)
    }

    var path: String
    var content: Content

    init(path: String, bytes: Data) {
        self.path = path
        self.content = .bytes(bytes)
    }

    init(path: String, copyOf source: URL) {
        self.path = path
        self.content = .copy(of: source)
    }

    /// The file's bytes.
    /// - Throws: `ExportError` when a file to copy cannot be read.
    func bytes() throws(ExportError) -> Data {
        switch content {
        case .bytes(let data): return data
        case .copy(let source):
            do {
                return try Data(contentsOf: source)
            } catch {
                throw .unreadableFile(path: source.path, cause: error)
            }
        }
    }
}

/// The whole site for a set of notes, built in memory: a pure function of the notes, so the
/// same notes give the same bytes whatever the filesystem order or the time of day.
struct Site: Sendable {
    /// Pages, the index, the stylesheet and the copied files, sorted by path.
    var files: [SiteFile]
    /// Links to notes or files that do not exist, and wiki links that name no file, in note order.
    var missingLinks: [LinkRewriter.MissingLink]
    /// What authors may want to fix but did not stop a page (front matter that is not valid
    /// YAML, shown as code), one line each, in note order.
    var warnings: [String] = []
}

/// Renders notes into a `Site`: one page per note at the mirrored path, `index.html` listing
/// every note by folder with its title (and every tag), `style.css`, a page per tag, and each
/// file of the folder a note links to or embeds, at its own path.
///
/// Notes render in the default flavour (`FlavouredRenderer`) unless `commonMark`; headings get
/// ids. In the default flavour `[[wiki links]]` are resolved against every note and file of the
/// folder, then handled like the Markdown links they stand for, `#tags` link to their pages and
/// `![[Note]]` embeds a note (`SiteLinks`).
struct SiteBuilder: Sendable {
    /// The site's name: the index page's title and heading.
    var title: String = "Notes"
    /// Pure CommonMark: `[[...]]`, `#tag` and everything else beyond CommonMark stay text.
    var commonMark = false
    /// Copy every file of the folder, not only those a note links to.
    var allFiles = false
    /// KaTeX and highlight.js, copied into `assets/` for the pages that show math or code, so
    /// the site works offline and from `file://`; nil copies none.
    var pageAssets: PageAssets? = .installed

    /// Builds the site for `notes` (sorted by path, each path once, as `ExportSource` gives
    /// them) and the folder's other `files`.
    /// - Throws: `ExportError` when two outputs need the same place (a folder named like a file).
    func build(_ notes: [ExportNote], files folderFiles: [ExportFile] = []) throws(ExportError) -> Site {
        let filesByPath = Dictionary(folderFiles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let links = SiteLinks(notes: notes, files: folderFiles, commonMark: commonMark)
        if allFiles { links.linkedFiles = Set(filesByPath.keys) }
        let renderer = FlavouredRenderer(flavour: commonMark ? .commonMark : .default)
        var files: [SiteFile] = []
        var warnings: [String] = []
        var entries: [SiteIndex.Entry] = []
        var tags = TagPages()
        var homeNote: RenderedMarkdown?
        // `a.md` and `a.markdown` would both be `a.html`.
        var pageOwners: [String: NotePath] = [:]
        // What the pages show that needs typesetting: only those files are copied.
        var typesetting: PageAssets.Needs = []
        files.reserveCapacity(notes.count + 2)
        entries.reserveCapacity(notes.count)
        for note in notes {
            let pagePath = SitePaths.page(for: note.path)
            let rendered: FlavouredRendering
            do {
                rendered = try renderer.render(note.content, extensions: links.extensions(for: note.path, onPage: pagePath))
            } catch {
                throw .rendererUnavailable(error)
            }
            if let line = rendered.frontMatter?.errorLine, let error = rendered.frontMatter?.error {
                warnings.append("\(note.path), line \(line): front matter is not valid YAML (\(error.message)); the page shows it as code")
            }
            let title = rendered.title(orFileName: note.path.fileName)
            let entry = SiteIndex.Entry(path: note.path, title: title)
            entries.append(entry)
            tags.add(rendered.tags, of: entry)
            if let other = pageOwners.updateValue(note.path, forKey: pagePath) {
                throw .pageTakenTwice(first: other, second: note.path, page: pagePath)
            }
            // A top-level index.md is the home page: its page is the index, with the listing under it.
            if pagePath == SitePaths.index {
                homeNote = RenderedMarkdown(html: rendered.html, title: rendered.title)
                continue
            }
            let page = HTMLPage(title: title, bodyHTML: rendered.html,
                                stylesheet: .linked(href: SitePaths.href(from: pagePath, to: SitePaths.stylesheet)),
                                indexHref: SitePaths.href(from: pagePath, to: SitePaths.index),
                                assets: pageAssets, assetsHref: SitePaths.href(from: pagePath, to: SitePaths.assets))
            typesetting.formUnion(PageAssets.Needs(bodyHTML: rendered.html))
            files.append(SiteFile(path: pagePath, bytes: Data(page.render().utf8)))
        }
        let index = SiteIndex(siteTitle: title, entries: entries, home: homeNote, tagSection: tags.indexSection()).page()
        files.append(SiteFile(path: SitePaths.index, bytes: Data(index.render().utf8)))
        files.append(SiteFile(path: SitePaths.stylesheet, bytes: Data(NotesStylesheet.css.utf8)))
        files += tags.pages()
        for asset in pageAssets?.files(for: typesetting) ?? [] {
            files.append(SiteFile(path: SitePaths.assets + asset.name, bytes: Data(asset.bytes)))
        }
        for path in links.linkedFiles.sorted() {
            if let file = filesByPath[path] { files.append(SiteFile(path: path, copyOf: file.source)) }
        }
        files.sort { $0.path < $1.path }
        try Self.checkNoClashes(files)
        return Site(files: files, missingLinks: links.missing, warnings: warnings)
    }

    /// Fails when one output path is also a folder of another (a note folder named `style.css`),
    /// or is needed twice (a note `a.md` beside a file `a.html`), since the filesystem cannot
    /// hold both.
    private static func checkNoClashes(_ files: [SiteFile]) throws(ExportError) {
        var paths: Set<String> = []
        for file in files {
            // Every path is made from a note path or encoded (tags): none may leave OUTDIR.
            precondition(ExportManifest.isSafeRelativePath(file.path), "an exported path leaves the site: \(file.path)")
        }
        for file in files where !paths.insert(file.path).inserted {
            throw .pathTakenTwice(file.path)
        }
        // Each folder once: a folder already checked had its parents checked with it.
        var checked: Set<Substring> = []
        for file in files {
            var folder = Substring(file.path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard checked.insert(folder).inserted else { break }
                if paths.contains(String(folder)) {
                    throw .folderReplacesFile(String(folder))
                }
            }
        }
    }
}
