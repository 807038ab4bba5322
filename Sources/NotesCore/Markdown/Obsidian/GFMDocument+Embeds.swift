extension GFMDocument {
    /// Replaces each paragraph made only of `![[...]]` embeds (one or more a line) by blocks:
    /// for each embed `render` answers, a `<div class="note-embed">` with a link to the note
    /// (to `resolve`'s destination, else its name as text) above `render`'s HTML. A line with an
    /// embed `render` does not answer stays a paragraph of its own, for the wiki-link pass.
    func embedNotes(resolve: ((WikiLink) -> String?)?, render: (WikiLink) -> String?) {
        for paragraph in nodes(ofType: GFMNodeType.paragraph) {
            guard let lines = embedLines(of: paragraph) else { continue }
            let rendered = lines.map { line in line.links.map(render) }
            guard rendered.contains(where: { htmls in htmls.contains { $0 != nil } }) else { continue }
            for (line, htmls) in zip(lines, rendered) {
                guard htmls.allSatisfy({ $0 != nil }) else {
                    let kept = newNode(GFMNodeType.paragraph)
                    if let text = newText(line.source) { append(text, to: kept) }
                    insert(kept, before: paragraph)
                    continue
                }
                for (link, html) in zip(line.links, htmls) {
                    insert(embedBlock(link, html: html ?? "", destination: resolve?(link)), before: paragraph)
                }
            }
            remove(paragraph)
        }
    }

    /// The lines of `paragraph` when each is nothing but embeds and spaces, with their text;
    /// nil for any other paragraph.
    private func embedLines(of paragraph: OpaquePointer) -> [(source: String, links: [WikiLink])]? {
        var lines: [(source: String, links: [WikiLink])] = []
        for child in children(of: paragraph) {
            switch type(of: child) {
            case GFMNodeType.softBreak, GFMNodeType.lineBreak: continue
            case GFMNodeType.text:
                guard let source = literal(of: child), source.contains("![[") else { return nil }
                var links: [WikiLink] = []
                for piece in WikiLinkSyntax.pieces(of: source) {
                    switch piece {
                    case .link(let link) where link.isEmbed: links.append(link)
                    case .text(let text) where text.allSatisfy(\.isWhitespace): continue
                    default: return nil
                    }
                }
                lines.append((source, links))
            default: return nil
            }
        }
        return lines.isEmpty ? nil : lines
    }

    /// The block one embedded note becomes. The link is a node of the tree, so the passes after
    /// this one (link treatment, safe mode) reach it; the content is HTML already rendered.
    private func embedBlock(_ link: WikiLink, html: String, destination: String?) -> OpaquePointer {
        let block = newCustom(block: true, enter: "<div class=\"note-embed\">\n", exit: "</div>\n")
        let title = newNode(GFMNodeType.paragraph)
        let name = newText(link.displayText)
        if let destination {
            let anchor = newNode(GFMNodeType.link)
            setURL(anchor, destination)
            if let name { append(name, to: anchor) }
            append(anchor, to: title)
        } else if let name {
            append(name, to: title)
        }
        append(title, to: block)
        append(newCustom(block: true, enter: "<div class=\"note-embed-content\">\n" + html, exit: "</div>\n"), to: block)
        return block
    }

    /// Keeps only the section under the first top-level heading whose slug is `heading`'s: that
    /// heading and what follows it up to the next heading of the same or a higher level.
    /// Returns false, changing nothing, when there is no such heading.
    func keepSection(named heading: String) -> Bool {
        let wanted = HeadingSlugger.slug(heading)
        let blocks = children(of: root)
        guard let start = blocks.firstIndex(where: { type(of: $0) == GFMNodeType.heading && HeadingSlugger.slug(plainText(of: $0)) == wanted })
        else { return false }
        let level = library.nodeGetHeadingLevel(blocks[start])
        let end = blocks[(start + 1)...].firstIndex { type(of: $0) == GFMNodeType.heading && library.nodeGetHeadingLevel($0) <= level } ?? blocks.endIndex
        for (index, block) in blocks.enumerated() where index < start || index >= end { remove(block) }
        return true
    }
}
