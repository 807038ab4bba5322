/// What the note embeds of one rendering share: the notes being rendered, outermost first, and
/// how many bytes of Markdown may still be embedded (`NoteEmbeds`' bounds).
struct EmbedState {
    var open: [String]
    var bytesLeft: Int
    let maximumDepth: Int

    init(_ embeds: NoteEmbeds) {
        open = [embeds.notePath]
        bytesLeft = embeds.maximumBytes
        maximumDepth = embeds.maximumDepth
    }
}

extension FlavouredRenderer {
    /// The HTML of the note `link` embeds, rendered in this flavour with the note's own
    /// extensions (no heading ids), or nil when it is to render as a link: no note found, a note
    /// already open (a cycle), past the depth or size bound, refused by the preflight, or a
    /// heading that the note does not have. Runs inside `CmarkGFM.exclusively`, as its caller.
    func embeddedHTML(for link: WikiLink, in embeds: NoteEmbeds?, state: inout EmbedState, library: CmarkGFM) -> String? {
        guard link.isEmbed, state.open.count <= state.maximumDepth, let embed = embeds?.find(link),
              !state.open.contains(embed.path), embed.markdown.count <= state.bytesLeft else { return nil }
        // A block reference (`#^id`) names a paragraph, not a section: left as a link.
        if let heading = link.heading, heading.hasPrefix("^") { return nil }
        state.bytesLeft -= embed.markdown.count
        return embed.markdown.withUnsafeBufferPointer { note -> String? in
            guard refusal(of: note) == nil else { return nil }
            let bodyStart = FrontMatter.split(note)?.bodyStart ?? 0
            let body = UnsafeBufferPointer(rebasing: note[bodyStart...])
            let document = GFMDocument(parsing: body, options: gfmOptions(for: body), extensions: Self.gfmExtensions, math: true, library: library)
            if let heading = link.heading, !document.keepSection(named: heading) { return nil }
            state.open.append(embed.path)
            defer { state.open.removeLast() }
            var extensions = embed.extensions
            extensions.headingIDs = false
            _ = document.applyObsidianFlavour(extensions: extensions, syntax: ObsidianSyntax(body), refusingUnsafeLinks: !allowsUnsafeHTML) { inner in
                embeddedHTML(for: inner, in: extensions.noteEmbeds, state: &state, library: library)
            }
            return document.html()
        }
    }
}
