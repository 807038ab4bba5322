/// Where `![[Note]]` and `![[Note#Heading]]` find the notes they embed, and the bounds that keep
/// embedding finite (`MarkdownExtensions.noteEmbeds`; default flavour only).
///
/// An embed written alone in its paragraph (several may share one, a line each) is replaced by
/// the embedded note rendered in the same flavour: its whole body (front matter left out), or
/// the section under the heading named, up to the next heading of the same or a higher level.
/// The block is `<div class="note-embed">` holding a link to the note, then its content in
/// `<div class="note-embed-content">`. An embed inside a line of text, one whose note or heading
/// is not found, one of a note already being rendered (a note embedding itself, or a cycle), one
/// deeper than `maximumDepth`, and one past `maximumBytes` render as a link instead, as a wiki
/// link to that note would.
///
/// The server wires it as export does: `find` looks the target up among the user's notes with
/// the same `WikiLinkResolver` as the wiki links, and gives the note's bytes with the
/// extensions its own links resolve with (relative to the page it is shown on).
public struct NoteEmbeds {
    /// The path of the note being rendered (as `find` names notes), so that embedding it again,
    /// directly or through other notes, renders a link.
    public var notePath: String
    /// The note `link` embeds, or nil when it names no note (an image, a missing note): then
    /// the embed is handled as any wiki link.
    public var find: (WikiLink) -> NoteEmbed?
    /// How many notes deep embeds nest (an embed inside an embedded note is depth 2).
    public var maximumDepth: Int
    /// The most bytes of Markdown one rendering embeds, all depths together.
    public var maximumBytes: Int

    public init(notePath: String, maximumDepth: Int = 4, maximumBytes: Int = 1 << 20, find: @escaping (WikiLink) -> NoteEmbed?) {
        precondition(maximumDepth >= 0 && maximumBytes >= 0, "embedding bounds cannot be negative")
        self.notePath = notePath
        self.find = find
        self.maximumDepth = maximumDepth
        self.maximumBytes = maximumBytes
    }
}

/// One embedded note, as `NoteEmbeds.find` gives it.
public struct NoteEmbed {
    /// Its path, as `NoteEmbeds.notePath` names notes: what cycles are detected by.
    public var path: String
    /// Its Markdown, front matter included (left out when it is rendered).
    public var markdown: [UInt8]
    /// What its own rendering adds: its wiki links, tag links and link treatment, with
    /// destinations that work from the page it is embedded in; its own `noteEmbeds` (with its
    /// path) for the notes it embeds in turn. Heading ids are never added inside an embed, so
    /// the page's own stay unique.
    public var extensions: MarkdownExtensions

    public init(path: String, markdown: [UInt8], extensions: MarkdownExtensions) {
        self.path = path
        self.markdown = markdown
        self.extensions = extensions
    }
}
