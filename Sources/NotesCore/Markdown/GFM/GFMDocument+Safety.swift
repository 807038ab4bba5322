extension GFMDocument {
    /// Turns every link whose destination safe mode refuses (`javascript:`, `vbscript:`,
    /// `file:`, non-image `data:`) into its bare content, as `MarkdownDocument` does for
    /// libcmark: cmark-gfm would only empty the `href`, leaving a link that looks live.
    func unwrapRefusedLinks() {
        var refused: [OpaquePointer] = []
        forEachNode { node, event, type, _ in
            guard event == GFMEvent.enter, type == GFMNodeType.link else { return }
            let url = url(of: node)
            if url.utf8.contains(UInt8(ascii: ":")), LinkSafety.isRefused(url) { refused.append(node) }
        }
        refused.forEach(unwrap)
    }
}
