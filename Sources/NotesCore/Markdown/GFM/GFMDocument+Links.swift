extension GFMDocument {
    /// Applies `treat` to every link and image: rewrites destinations, and replaces the ones to
    /// unlink by their content (a link's text, an image's alt text), as `MarkdownDocument`
    /// does for libcmark's tree.
    func treatLinks(_ treat: (LinkDestination) -> LinkTreatment) {
        var unlinked: [OpaquePointer] = []
        forEachNode { node, event, type, _ in
            guard event == GFMEvent.enter, type == GFMNodeType.link || type == GFMNodeType.image else { return }
            switch treat(LinkDestination(url: url(of: node), isImage: type == GFMNodeType.image)) {
            case .keep: break
            case .rewrite(let replacement): setURL(node, replacement)
            case .plainText: unlinked.append(node)
            }
        }
        // Innermost first: an image inside a link is unlinked before (or without) the link.
        unlinked.reversed().forEach(unwrap)
    }
}
