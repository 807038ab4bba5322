import NotesCore

/// How the server renders a note for its owner: the one place the API's HTML, the web app's
/// note, history and preview pages and published pages take a note's HTML from, so the same
/// note renders the same everywhere, apart from where its links lead (docs/rendering.md, "On
/// the server").
///
/// - The flavour is the server's (`notes-server serve --markdown`), unless a request asks for
///   another (`GET /v1/notes/{id}/html?flavour=`).
/// - `[[wiki links]]` and `![[embeds]]` resolve against the owner's live notes and files
///   (`WikiLinkResolver` over their paths), to a destination relative to the note's folder, as
///   the note's own Markdown links are written; the page's link treatment, when it has one,
///   then decides where such a destination leads (the web app: `WebNoteLinks`; a published
///   page: `PublicationLinks`). The owner's paths are read only for a note holding `[[`.
/// - `#tags` link to the web app's page of the tag, except on a public page, whose readers
///   have no account: there a tag is a `<span class="tag">`.
/// - Headings get ids, so `#heading` fragments land.
struct NoteRendering: Sendable {
    /// The flavour notes render in unless a request asks for another.
    var flavour: MarkdownFlavour = .default

    /// The version of what rendering makes of a note, for the HTML kept per revision: raise it
    /// whenever the output of either flavour changes, and every kept rendering is made again at
    /// its next read.
    /// 1: links with a refused scheme render as their text, not as `<a href="">`.
    /// 2: a note past `MarkdownPreflight`'s bound renders as its escaped text with a notice.
    /// 3: notes render through this type: the default flavour, heading ids, tag links.
    static let version = 3

    /// What a kept rendering made in `flavour` records (`rendered_html.renderer`), so one made
    /// in the other flavour, or by an older version, is never served.
    static func keptVersion(of flavour: MarkdownFlavour) -> Int {
        version * 2 + (flavour == .commonMark ? 1 : 0)
    }

    /// The flavour a setting names (`--markdown`, `?flavour=`): `default` or `commonmark`.
    static func flavour(named name: String) -> MarkdownFlavour? {
        switch name {
        case "default": .default
        case MarkdownFlavour.commonMark.rawValue: .commonMark
        default: nil
        }
    }

    /// Where a page's links lead once wiki links are resolved.
    enum Links {
        /// As written, relative to the note's folder (the API's HTML, like `notes render`).
        case asWritten
        /// Through `treat`, with `#tags` linked to the web app's tag pages (the web app).
        case privatePage(treat: (LinkDestination) -> LinkTreatment)
        /// Through `treat`, with `#tags` unlinked (a published page).
        case publicPage(treat: (LinkDestination) -> LinkTreatment)
    }

    /// Renders `content`, the owner's note at `notePath`, in `flavour` (else the server's).
    /// - Parameters:
    ///   - paths: the owner's live paths, notes and files; called only when `content` may hold
    ///     a wiki link.
    ///   - contents: the live content of the owner's note at a path, for `![[Note]]` embeds; nil
    ///     renders embeds as links. A public page never embeds: its readers may only see the
    ///     note that was published.
    ///   - taskForm: the form task checkboxes tick through (the web app's note page); nil keeps
    ///     them disabled. An embedded note's tasks always stay disabled.
    /// - Throws: `NoteRenderingError` when the default flavour's library is missing here, or
    ///   what `paths` or `contents` throws.
    func render(_ content: String, notePath: String, paths: () throws -> [String], contents: ((String) throws -> String?)? = nil,
                links: Links = .asWritten, flavour requested: MarkdownFlavour? = nil, taskForm: String? = nil) throws -> FlavouredRendering {
        let resolver = Self.mayHoldWikiLinks(content) ? WikiLinkResolver(files: try paths()) : nil
        let failure = EmbedFailure()
        let extensions = Self.extensions(for: notePath, shownIn: notePath, resolver: resolver, links: links,
                                         contents: contents, failure: failure)
        let rendered: FlavouredRendering
        do {
            rendered = try FlavouredRenderer(flavour: requested ?? flavour, taskForm: taskForm).render(content.utf8, extensions: extensions)
        } catch {
            throw NoteRenderingError.libraryMissing(error.description)
        }
        if let error = failure.error { throw error }
        return rendered
    }

    /// What the note at `note` renders with on the page of the note at `shown` (itself, or a
    /// note embedding it): its wiki links resolved from its own folder, then rebased to `shown`'s
    /// folder, where the page's treatment expects them; its own embeds, cycle-safe and bounded
    /// by `NoteEmbeds`.
    private static func extensions(for note: String, shownIn shown: String, resolver: WikiLinkResolver?, links: Links,
                                   contents: ((String) throws -> String?)?, failure: EmbedFailure) -> MarkdownExtensions {
        var extensions = MarkdownExtensions(headingIDs: true)
        if let resolver {
            extensions.wikiLinks = { resolver.destination(for: $0, from: note) }
        }
        var treat: ((LinkDestination) -> LinkTreatment)?
        var embeds = contents
        switch links {
        case .asWritten:
            extensions.tagLinks = Self.tagPage
        case .privatePage(let pageTreatment):
            extensions.tagLinks = Self.tagPage
            treat = pageTreatment
        case .publicPage(let pageTreatment):
            treat = pageTreatment
            embeds = nil
        }
        if note != shown {
            let pageTreatment = treat
            treat = { destination in
                let rebased = LinkDestination(url: RelativeLink.rebase(destination.url, from: note, to: shown), isImage: destination.isImage)
                return pageTreatment?(rebased) ?? .rewrite(rebased.url)
            }
        }
        extensions.linkTreatment = treat
        if let resolver, let embeds {
            extensions.noteEmbeds = NoteEmbeds(notePath: note) { link in
                guard failure.error == nil, let path = resolver.resolve(link.target, from: note), EntryKind(path: path) == .note else { return nil }
                do {
                    guard let markdown = try embeds(path) else { return nil }
                    return NoteEmbed(path: path, markdown: Array(markdown.utf8),
                                     extensions: Self.extensions(for: path, shownIn: shown, resolver: resolver, links: links,
                                                            contents: embeds, failure: failure))
                } catch {
                    failure.error = error
                    return nil
                }
            }
        }
        return extensions
    }

    /// Whether `content` renders the same whatever other notes and files its owner has, so its
    /// rendering may be kept: it holds no wiki link, or it is past the preflight's bound and
    /// shows as its text.
    func isSelfContained(_ content: String) -> Bool {
        !Self.mayHoldWikiLinks(content) || refuses(content)
    }

    /// Whether `content` may hold a wiki link (or embed): it holds `[[`.
    static func mayHoldWikiLinks(_ content: String) -> Bool {
        var previous: UInt8 = 0
        for byte in content.utf8 {
            if byte == UInt8(ascii: "["), previous == byte { return true }
            previous = byte
        }
        return false
    }

    /// The web app's page of `tag` (`/tags/project/notes` for `#project/notes`).
    static func tagPage(_ tag: String) -> String? {
        TagPages.address(of: tag).value
    }

    /// The tags of `content` as its rendering in the server's flavour finds them (front matter
    /// `tags` and inline `#tags`; none in pure CommonMark), without `#`, each once.
    func tags(of content: String) throws -> [String] {
        do {
            return try FlavouredRenderer(flavour: flavour).render(content.utf8).tags
        } catch {
            throw NoteRenderingError.libraryMissing(error.description)
        }
    }

    /// Whether `markdown` would be shown as its text rather than parsed, in `flavour` (else the
    /// server's): such a note costs one linear pass, so it renders on the connection thread.
    func refuses(_ markdown: String, flavour requested: MarkdownFlavour? = nil) -> Bool {
        FlavouredRenderer(flavour: requested ?? flavour).refusal(of: markdown) != nil
    }
}

/// The first error reading an embedded note, reported once the rendering is done: a store
/// that cannot be read fails the page, as it would fail any other read.
private final class EmbedFailure {
    var error: (any Error)?
}

/// Why a note could not be rendered at all: a fault of the installation, never of the note.
enum NoteRenderingError: Error, Sendable {
    /// The default flavour's library (cmark-gfm) could not be loaded; the message says which.
    case libraryMissing(String)
}
