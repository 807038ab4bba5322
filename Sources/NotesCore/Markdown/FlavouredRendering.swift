/// A note rendered in a flavour: the HTML fragment and what was learned while rendering it.
public struct FlavouredRendering: Sendable, Equatable {
    /// The HTML fragment (safe mode applied as the renderer was asked).
    public var html: String
    /// The page title: the front matter's `title`, else the first heading's text; nil when the
    /// note has neither (a caller falls back to the file name, `title(orFileName:)`).
    public var title: String?
    /// The note's front matter, when it begins with one (never in pure CommonMark).
    public var frontMatter: FrontMatter?
    /// Every tag of the note, front matter and inline `#tags` alike, without `#`, each once, in
    /// order of first appearance.
    public var tags: [String]
    /// What the author may want to fix (invalid front matter), for export to report; the page
    /// renders anyway and nothing is dropped.
    public var warnings: [String]

    public init(html: String, title: String?, frontMatter: FrontMatter? = nil, tags: [String] = [], warnings: [String] = []) {
        self.html = html
        self.title = title
        self.frontMatter = frontMatter
        self.tags = tags
        self.warnings = warnings
    }

    /// The page title, else `fileName` without its note extension.
    public func title(orFileName fileName: String) -> String {
        RenderedMarkdown(html: html, title: title).title(orFileName: fileName)
    }
}
