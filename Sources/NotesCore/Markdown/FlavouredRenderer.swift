/// Renders a note in a `MarkdownFlavour`: the one entry point for every place a note is shown.
///
/// `.commonMark` is `MarkdownRenderer` (libcmark, CommonMark 0.30, nothing added). The default,
/// `.obsidian`, splits off the front matter, parses the rest with cmark-gfm and its GFM
/// extensions (see `CmarkGFM`), adds what Obsidian users write, then applies safe mode.
/// Safe mode is the same in both: no raw HTML, and a link to a refused scheme renders as its
/// text. Everything the flavour adds is HTML written here, every piece of note text escaped.
public struct FlavouredRenderer: Sendable {
    public var flavour: MarkdownFlavour
    /// Whether raw HTML and every link scheme pass through: only for a user's own trusted notes.
    public var allowsUnsafeHTML: Bool
    /// Turn straight quotes and dashes into typographic ones.
    public var smartPunctuation: Bool
    /// The bound every note (and every embedded note) passes before a parser sees it; past it,
    /// a note renders as its escaped text with a notice, in either flavour.
    public var preflight: MarkdownPreflight
    /// The id of the form that task checkboxes belong to, for a page where a click ticks a task
    /// (the web app's note page): each renders enabled, named `done`, its value the task's
    /// number as `NoteTasks` counts them. nil (export, published pages, embedded notes):
    /// disabled, as GFM has them.
    public var taskForm: String?

    public init(flavour: MarkdownFlavour = .default, allowsUnsafeHTML: Bool = false, smartPunctuation: Bool = false,
                preflight: MarkdownPreflight = MarkdownPreflight(), taskForm: String? = nil) {
        self.flavour = flavour
        self.allowsUnsafeHTML = allowsUnsafeHTML
        self.smartPunctuation = smartPunctuation
        self.preflight = preflight
        self.taskForm = taskForm
    }

    /// The GFM extensions attached to every default-flavour parse. The tag filter only acts on
    /// raw HTML, which only unsafe mode lets through.
    static let gfmExtensions = CmarkGFM.extensionNames

    /// Renders `markdown`'s UTF-8 bytes, with `extensions` (wiki links, heading ids, tag links).
    /// - Throws: `CmarkGFMError` when the default flavour's library cannot be loaded here.
    public func render<Bytes: Collection>(_ markdown: Bytes, extensions: MarkdownExtensions = .commonMark) throws(CmarkGFMError)
        -> FlavouredRendering where Bytes.Element == UInt8 {
        if flavour == .commonMark { return renderCommonMark(markdown, extensions: extensions) }
        var html = ""
        var rendered = try render(markdown, extensions: extensions) { html += String(decoding: $0, as: UTF8.self) }
        rendered.html = html
        return rendered
    }

    /// Renders as `render(_:extensions:)` does, but lends the HTML to `write` instead of
    /// copying it into the result, whose `html` is empty: in one or more pieces, in order, each
    /// valid only during its call. For output that is only passed on (`notes render` writes
    /// it to stdout). In the default flavour `write` runs while cmark-gfm is held for this
    /// render (see `CmarkGFM.exclusively`): it must not render itself.
    public func render<Bytes: Collection>(_ markdown: Bytes, extensions: MarkdownExtensions = .commonMark,
                                          streamingHTMLTo write: (UnsafeBufferPointer<UInt8>) -> Void) throws(CmarkGFMError)
        -> FlavouredRendering where Bytes.Element == UInt8 {
        switch flavour {
        case .commonMark:
            var rendered = renderCommonMark(markdown, extensions: extensions)
            rendered.html.withUTF8(write)
            rendered.html = ""
            return rendered
        case .obsidian:
            let library = try CmarkGFM.shared.get()
            let render: (UnsafeBufferPointer<UInt8>) -> FlavouredRendering = { note in
                if let refusal = refusal(of: note) {
                    var html = refusal.html(showing: note)
                    html.withUTF8(write)
                    return FlavouredRendering(html: "", title: nil)
                }
                return library.exclusively { renderObsidian(note, extensions: extensions, library: library, html: write) }
            }
            if let result = markdown.withContiguousStorageIfAvailable(render) { return result }
            return Array(markdown).withUnsafeBufferPointer(render)
        }
    }

    private func renderCommonMark<Bytes: Collection>(_ markdown: Bytes, extensions: MarkdownExtensions) -> FlavouredRendering
        where Bytes.Element == UInt8 {
        let renderer = MarkdownRenderer(allowsUnsafeHTML: allowsUnsafeHTML, smartPunctuation: smartPunctuation, preflight: preflight)
        let rendered = extensions.linkTreatment.map { renderer.render(markdown, extensions: extensions, treatingLinks: $0) }
            ?? renderer.render(markdown, extensions: extensions)
        return FlavouredRendering(html: rendered.html, title: rendered.title)
    }

    /// The cmark-gfm options for parsing and rendering `markdown`.
    func gfmOptions(for markdown: UnsafeBufferPointer<UInt8>) -> Int32 {
        var options = GFMOption.footnotes
        if !UTF8Validation.isValid(markdown) { options |= GFMOption.validateUTF8 }
        if allowsUnsafeHTML { options |= GFMOption.unsafe }
        if smartPunctuation { options |= GFMOption.smart }
        return options
    }

    /// Why `markdown` would be shown as its text instead of rendered, or nil when it is rendered:
    /// for callers that schedule the work by its cost (a refused note costs one linear pass).
    public func refusal(of markdown: String) -> MarkdownPreflight.Refusal? {
        var markdown = markdown
        return markdown.withUTF8 { refusal(of: $0) }
    }

    /// Why `markdown` is shown as text instead of rendered, or nil when it is rendered.
    func refusal(of markdown: UnsafeBufferPointer<UInt8>) -> MarkdownPreflight.Refusal? {
        var preflight = preflight
        preflight.countsPunctuation = preflight.countsPunctuation || smartPunctuation
        return preflight.refusal(of: markdown)
    }

    /// The default flavour's syntax tree of a note's body (after its front matter): the one
    /// parse that rendering and `NoteTasks` share, so both see the same tasks.
    func parse(_ body: UnsafeBufferPointer<UInt8>, library: CmarkGFM) -> GFMDocument {
        GFMDocument(parsing: body, options: gfmOptions(for: body), extensions: Self.gfmExtensions, math: true, library: library)
    }

    /// The rendering of `note`, its HTML lent to `write` (the properties block, then the body).
    private func renderObsidian(_ note: UnsafeBufferPointer<UInt8>, extensions: MarkdownExtensions, library: CmarkGFM,
                                html write: (UnsafeBufferPointer<UInt8>) -> Void) -> FlavouredRendering {
        let split = FrontMatter.split(note)
        let frontMatter = split.map { FrontMatter(yaml: $0.yaml) }
        let body = UnsafeBufferPointer(rebasing: note[(split?.bodyStart ?? 0)...])
        let document = parse(body, library: library)
        if taskForm != nil { document.numberTasks() }
        var embedding = extensions.noteEmbeds.map(EmbedState.init)
        let found = document.applyObsidianFlavour(extensions: extensions, syntax: ObsidianSyntax(body),
                                                  refusingUnsafeLinks: !allowsUnsafeHTML) { link in
            guard embedding != nil else { return nil }
            return embeddedHTML(for: link, in: extensions.noteEmbeds, state: &embedding!, library: library)
        }
        if let taskForm { document.makeTasksInteractive(formID: taskForm) }
        let headingTitle = document.firstHeadingText(found.headings)
        if extensions.headingIDs { document.addHeadingIDs(found.headings) }
        if var properties = frontMatter?.html { properties.withUTF8(write) }
        document.withHTML(write)
        var tags: [String] = []
        for tag in (frontMatter?.tags ?? []) + found.tags where !tags.contains(tag) { tags.append(tag) }
        return FlavouredRendering(html: "", title: frontMatter?.title ?? headingTitle, frontMatter: frontMatter,
                                  tags: tags, warnings: frontMatter?.warning.map { [$0] } ?? [])
    }
}
