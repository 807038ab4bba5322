/// Which Markdown a note is read as.
public enum MarkdownFlavour: String, Sendable, CaseIterable {
    /// What notes are written in: CommonMark, GitHub's extensions (tables, task lists,
    /// strikethrough, autolinks, footnotes, the tag filter in unsafe mode) by cmark-gfm, and
    /// what Obsidian users write (front matter, callouts, highlights, comments, tags).
    case obsidian
    /// Pure CommonMark 0.30 by libcmark, nothing added: `--commonmark`.
    case commonMark = "commonmark"

    /// The flavour a note is rendered in unless the caller asks for pure CommonMark.
    public static let `default`: MarkdownFlavour = .obsidian
}
