import CCmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Renders CommonMark to HTML with libcmark.
///
/// Safe by default: raw HTML is omitted, a link to a `javascript:`, `vbscript:`, `file:` or
/// non-image `data:` destination renders as its text, and such an image source is emptied. Input that is not valid UTF-8 is
/// repaired with U+FFFD instead of being passed through. Input past `preflight`'s bound is never
/// parsed: it renders as its escaped text with a notice, so no note can hold a thread for long.
public struct MarkdownRenderer: Sendable {
    /// Whether raw HTML and every link scheme pass through: only for a user's own trusted notes.
    public var allowsUnsafeHTML: Bool
    /// Turn straight quotes and dashes into typographic ones.
    public var smartPunctuation: Bool
    /// The bound every note passes before cmark sees it; past it, a note renders as its escaped
    /// text with a notice, whatever the mode.
    public var preflight: MarkdownPreflight

    public init(allowsUnsafeHTML: Bool = false, smartPunctuation: Bool = false, preflight: MarkdownPreflight = MarkdownPreflight()) {
        self.allowsUnsafeHTML = allowsUnsafeHTML
        self.smartPunctuation = smartPunctuation
        self.preflight = preflight
    }

    /// Why `markdown` is shown as text instead of rendered, or nil when it is rendered. Every
    /// rendering entry point asks this first.
    func refusal(of markdown: UnsafeBufferPointer<UInt8>) -> MarkdownPreflight.Refusal? {
        var preflight = preflight
        preflight.countsPunctuation = preflight.countsPunctuation || smartPunctuation
        return preflight.refusal(of: markdown)
    }

    /// Why `markdown` would be shown as text instead of rendered, or nil when cmark renders it:
    /// for callers that schedule the work by its cost (a refused note costs one linear pass).
    public func refusal(of markdown: String) -> MarkdownPreflight.Refusal? {
        var markdown = markdown
        return markdown.withUTF8 { refusal(of: $0) }
    }

    /// The safe default renderer.
    public static let safe = MarkdownRenderer()

    var options: Int32 {
        var options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8
        if allowsUnsafeHTML { options |= CMARK_OPT_UNSAFE }
        if smartPunctuation { options |= CMARK_OPT_SMART }
        return options
    }

    /// The HTML fragment for `markdown`'s UTF-8 bytes: pure CommonMark, no wiki links, no
    /// heading ids (what the server stores).
    public func html<Bytes: Collection>(from markdown: Bytes) -> String where Bytes.Element == UInt8 {
        withHTML(from: markdown) { String(decoding: $0, as: UTF8.self) }
    }

    /// Renders `markdown`'s UTF-8 bytes and lends the HTML bytes to `body` without copying them,
    /// for callers that only pass them on (`notes render` writes them straight to stdout).
    /// The buffer is valid only during `body`; cmark's output is valid UTF-8.
    ///
    /// Unsafe output comes straight from `cmark_markdown_to_html`; safe output goes through the
    /// tree, where links with a refused scheme become their text.
    /// `extensions` as in `render`; without any, unsafe output takes cmark's one-call path.
    public func withHTML<Bytes: Collection, Value, Failure: Error>(
        from markdown: Bytes, extensions: MarkdownExtensions = .commonMark,
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value
    ) throws(Failure) -> Value where Bytes.Element == UInt8 {
        func bounded(_ buffer: UnsafeBufferPointer<UInt8>, _ render: (UnsafeBufferPointer<UInt8>) -> Result<Value, Failure>) -> Result<Value, Failure> {
            guard let refusal = refusal(of: buffer) else { return render(buffer) }
            var html = refusal.html(showing: buffer)
            return html.withUTF8 { bytes in Result { () throws(Failure) -> Value in try body(bytes) } }
        }
        func renderSafely(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Value, Failure> {
            let document = MarkdownDocument(parsing: buffer, options: options)
            if let resolve = extensions.wikiLinks { document.replaceWikiLinks(resolve) }
            if !allowsUnsafeHTML, !extensions.headingIDs {
                // Most notes have no refused link, and finding one walks the whole tree (a tenth
                // of rendering 20 MB). cmark renders each as `<a href=""`, text can never
                // produce that (`<` is escaped, raw HTML omitted), so HTML without it had none
                // and is exactly what unwrapping would give: then one pass over the output does.
                let rendered = document.withHTMLShowingNoRefusedLink { bytes in
                    Result { () throws(Failure) -> Value in try body(bytes) }
                }
                if let rendered { return rendered }
            }
            if !allowsUnsafeHTML { document.unwrapRefusedLinks() }
            if extensions.headingIDs { document.addHeadingIDs() }
            return document.withHTML { bytes in Result { () throws(Failure) -> Value in try body(bytes) } }
        }
        if !allowsUnsafeHTML || extensions.wikiLinks != nil || extensions.headingIDs {
            let outcome = markdown.withContiguousStorageIfAvailable { bounded($0, renderSafely) }
                ?? Array(markdown).withUnsafeBufferPointer { bounded($0, renderSafely) }
            return try outcome.get()
        }
        func render(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Value, Failure> {
            let html = buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    cmark_markdown_to_html($0, buffer.count, MarkdownDocument.parseOptions(options, for: buffer))
                }
            }
            guard let html else { return Result { () throws(Failure) in try body(UnsafeBufferPointer(start: nil, count: 0)) } }
            defer { free(html) }
            let length = strlen(html)
            return html.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                Result { () throws(Failure) in try body(UnsafeBufferPointer(start: bytes, count: length)) }
            }
        }
        let outcome = markdown.withContiguousStorageIfAvailable { bounded($0, render) } ?? Array(markdown).withUnsafeBufferPointer { bounded($0, render) }
        return try outcome.get()
    }

    /// The HTML fragment for `markdown`.
    public func html(from markdown: String) -> String {
        var markdown = markdown
        return markdown.withUTF8 { html(from: $0) }
    }

    /// Renders `markdown`'s UTF-8 bytes in one parse, letting `rewriteLink` replace link and image
    /// destinations (return nil to keep one), and extracts the title: the text of the first heading.
    ///
    /// `extensions` adds what plain CommonMark lacks (wiki links, heading ids); the default adds
    /// nothing. Wiki links are resolved first, so their destinations are offered to `rewriteLink`
    /// like any other. Safe mode applies to every destination, rewritten or resolved, so neither
    /// can smuggle in a `javascript:` link; such a link renders as its text.
    public func render<Bytes: Collection>(_ markdown: Bytes, extensions: MarkdownExtensions = .commonMark,
                                          rewritingLinks rewriteLink: (LinkDestination) -> String? = { _ in nil })
        -> RenderedMarkdown where Bytes.Element == UInt8 {
        let render: (UnsafeBufferPointer<UInt8>) -> RenderedMarkdown = { buffer in
            if let refusal = refusal(of: buffer) { return RenderedMarkdown(html: refusal.html(showing: buffer), title: nil) }
            let document = MarkdownDocument(parsing: buffer, options: options)
            if let resolve = extensions.wikiLinks { document.replaceWikiLinks(resolve) }
            let scan = document.rewriteLinks(rewriteLink, findingRefused: !allowsUnsafeHTML, findingHeadings: extensions.headingIDs)
            document.unwrap(scan.refusedLinks)
            if extensions.headingIDs { document.addHeadingIDs(to: scan.headings) }
            return RenderedMarkdown(html: document.html(), title: scan.title)
        }
        if let result = markdown.withContiguousStorageIfAvailable(render) { return result }
        return Array(markdown).withUnsafeBufferPointer(render)
    }
}

/// What a rendering adds to CommonMark. The default, `.commonMark`, adds nothing: the output is
/// exactly CommonMark's (the conformance suite checks it).
public struct MarkdownExtensions {
    /// Resolves `[[wiki links]]` and `![[embeds]]` to a destination, or nil to render one as its
    /// plain text; when this is nil, `[[...]]` stays text as CommonMark reads it.
    public var wikiLinks: ((WikiLink) -> String?)?
    /// Whether headings get GitHub-style `id`s, so `page.html#some-heading` lands on them.
    public var headingIDs: Bool
    /// The destination of a `#tag`'s page (given the tag without `#`), or nil to show the tag
    /// unlinked. Only the default flavour reads tags; pure CommonMark leaves `#tag` as text.
    public var tagLinks: ((String) -> String?)?
    /// What to do with each link and image destination (keep, rewrite, or show as its text),
    /// after wiki links are resolved and before safe mode; nil keeps every one. Export makes
    /// links between notes links between pages with it.
    public var linkTreatment: ((LinkDestination) -> LinkTreatment)?
    /// Where `![[Note]]` and `![[Note#Heading]]` find the notes they embed; nil renders such an
    /// embed as a link. Only the default flavour embeds notes.
    public var noteEmbeds: NoteEmbeds?

    public init(wikiLinks: ((WikiLink) -> String?)? = nil, headingIDs: Bool = false, tagLinks: ((String) -> String?)? = nil,
                linkTreatment: ((LinkDestination) -> LinkTreatment)? = nil, noteEmbeds: NoteEmbeds? = nil) {
        self.wikiLinks = wikiLinks
        self.headingIDs = headingIDs
        self.tagLinks = tagLinks
        self.linkTreatment = linkTreatment
        self.noteEmbeds = noteEmbeds
    }

    /// Pure CommonMark.
    public static var commonMark: MarkdownExtensions { MarkdownExtensions() }
}

/// A note rendered to an HTML fragment, with the title found while rendering.
public struct RenderedMarkdown: Sendable, Equatable {
    /// The HTML fragment, as `MarkdownRenderer.html(from:)` would give it (links rewritten).
    public var html: String
    /// The plain text of the first heading, or nil when the note has none (or it is empty).
    public var title: String?

    public init(html: String, title: String?) {
        self.html = html
        self.title = title
    }
}

extension RenderedMarkdown {
    /// The page title: the first heading's text, else `fileName` without its note extension
    /// (`.md`, `.markdown`: what static-site generators show for a page without a heading).
    public func title(orFileName fileName: String) -> String {
        if let title { return title }
        let stem = EntryKind.droppingNoteExtension(fileName)
        return stem.isEmpty ? fileName : stem
    }
}
