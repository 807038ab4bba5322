import CCmark

/// What a rendering does with one link or image destination.
public enum LinkTreatment: Sendable, Equatable {
    /// Keep the destination as written (safe mode still refuses dangerous schemes).
    case keep
    /// Replace the destination.
    case rewrite(String)
    /// Drop the link and keep its content: a link becomes its text, an image its alt text.
    case plainText
}

extension MarkdownRenderer {
    /// Renders `markdown`'s UTF-8 bytes in one parse, letting `treat` keep, rewrite or unlink
    /// each link and image, and extracts the title (the text of the first heading).
    ///
    /// For pages that must not lead anywhere their author did not mean to, such as a published
    /// note, where a relative link would resolve against the server instead of the author's
    /// folder. Safe mode applies after `treat`, so a rewrite cannot smuggle in a `javascript:` link.
    public func render<Bytes: Collection>(_ markdown: Bytes, extensions: MarkdownExtensions = .commonMark,
                                          treatingLinks treat: (LinkDestination) -> LinkTreatment)
        -> RenderedMarkdown where Bytes.Element == UInt8 {
        let render: (UnsafeBufferPointer<UInt8>) -> RenderedMarkdown = { buffer in
            if let refusal = refusal(of: buffer) { return RenderedMarkdown(html: refusal.html(showing: buffer), title: nil) }
            let document = MarkdownDocument(parsing: buffer, options: options)
            if let resolve = extensions.wikiLinks { document.replaceWikiLinks(resolve) }
            let title = document.rewriteLinksAndFindTitle { _ in nil }
            document.treatLinks(treat)
            if !allowsUnsafeHTML { document.unwrapRefusedLinks() }
            if extensions.headingIDs { document.addHeadingIDs() }
            return RenderedMarkdown(html: document.html(), title: title)
        }
        if let result = markdown.withContiguousStorageIfAvailable(render) { return result }
        return Array(markdown).withUnsafeBufferPointer(render)
    }
}

extension MarkdownDocument {
    /// Applies `treat` to every link and image: rewrites destinations, and replaces the ones to
    /// unlink by their content (a link's text, an image's alt text).
    func treatLinks(_ treat: (LinkDestination) -> LinkTreatment) {
        var unlinked: [OpaquePointer] = []
        forEachNode { node, event, _ in
            let type = cmark_node_get_type(node)
            guard event == CMARK_EVENT_ENTER, type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE else { return }
            let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
            switch treat(LinkDestination(url: url, isImage: type == CMARK_NODE_IMAGE)) {
            case .keep: break
            case .rewrite(let replacement): _ = cmark_node_set_url(node, replacement)
            case .plainText: unlinked.append(node)
            }
        }
        // Innermost first: an image inside a link is unlinked before (or without) the link.
        unwrap(unlinked.reversed())
    }
}
