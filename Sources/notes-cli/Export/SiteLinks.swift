import Foundation
import NotesCore

/// How the notes of a site link to each other: the `MarkdownExtensions` each page renders with,
/// and what rendering found (links to nothing, files to copy).
///
/// One rendering of one page uses it at a time; a class because the closures it hands to the
/// renderer record into it. Embedded notes render with their own links rebased onto the page
/// they are shown on, record the files they link to (so those are copied too), and report no
/// missing link: their own page reports it once.
final class SiteLinks {
    private let rewriter: LinkRewriter
    private let wiki: WikiLinkResolver
    private let notesByPath: [String: Data]
    private let commonMark: Bool
    /// Links to notes or files that do not exist, and wiki links that name no file, in note order.
    private(set) var missing: [LinkRewriter.MissingLink] = []
    /// The folder's files some page links to or embeds, to copy into the site.
    var linkedFiles: Set<String> = []

    init(notes: [ExportNote], files: [ExportFile], commonMark: Bool) {
        rewriter = LinkRewriter(notes: notes.map(\.path), files: Set(files.map(\.path)))
        wiki = WikiLinkResolver(files: notes.map(\.path.value) + files.map(\.path))
        notesByPath = Dictionary(notes.map { ($0.path.value, $0.content) }, uniquingKeysWith: { first, _ in first })
        self.commonMark = commonMark
    }

    /// The extensions the note at `note` renders with on the page at `page`: its own page, or
    /// another one that embeds it.
    func extensions(for note: NotePath, onPage page: String) -> MarkdownExtensions {
        let ownPage = SitePaths.page(for: note)
        let reports = ownPage == page
        var extensions = MarkdownExtensions(headingIDs: true)
        extensions.linkTreatment = { [unowned self] destination in
            switch self.rewriter.outcome(for: destination.url, in: note) {
            case .keep:
                return reports ? .keep : .rewrite(RelativeLink.rebase(destination.url, from: ownPage, to: page))
            case .rewrite(let href):
                return .rewrite(RelativeLink.rebase(href, from: ownPage, to: page))
            case .file(let path):
                self.linkedFiles.insert(path)
                return reports ? .keep : .rewrite(SitePaths.href(from: page, to: path))
            case .missing(let reason):
                if reports { self.missing.append(LinkRewriter.MissingLink(note: note, destination: destination.url, reason: reason)) }
                return .keep
            }
        }
        guard !commonMark else { return extensions }
        extensions.wikiLinks = { [unowned self] link in
            if let destination = self.wiki.destination(for: link, from: note.value) { return destination }
            if reports {
                self.missing.append(LinkRewriter.MissingLink(note: note, destination: "[[\(link.target)]]",
                                                        reason: "it names no note or file in the folder"))
            }
            return nil
        }
        extensions.tagLinks = { tag in SitePaths.href(from: page, to: SitePaths.tagPage(for: tag)) }
        extensions.noteEmbeds = NoteEmbeds(notePath: note.value) { [unowned self] link in
            guard let path = self.wiki.resolve(link.target, from: note.value), let content = self.notesByPath[path],
                  let embedded = try? NotePath(path) else { return nil }
            return NoteEmbed(path: path, markdown: Array(content), extensions: self.extensions(for: embedded, onPage: page))
        }
        return extensions
    }
}
