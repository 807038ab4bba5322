import Foundation

/// The few tree operations wiki-link replacement needs, so one algorithm serves both trees:
/// libcmark's (`MarkdownDocument`, pure CommonMark with wiki links, as export renders) and
/// cmark-gfm's (`GFMDocument`, the default flavour). Nodes are the libraries' `cmark_node *`.
protocol WikiLinkTree {
    /// Every text node holding `[[`, in document order, that is not inside a link or image.
    func wikiLinkCandidates() -> [OpaquePointer]
    func textLiteral(of node: OpaquePointer) -> String?
    func setTextLiteral(_ node: OpaquePointer, _ text: String)
    func nextSibling(of node: OpaquePointer) -> OpaquePointer?
    /// Whether `node` is plain text.
    func isText(_ node: OpaquePointer) -> Bool
    /// Whether `node` may sit inside a link's label: a code span or emphasis, never a link.
    func mayBeLabel(_ node: OpaquePointer) -> Bool
    func makeText(_ text: String) -> OpaquePointer?
    /// A new link (or image) to `url`, without children.
    func makeLink(to url: String, image: Bool) -> OpaquePointer
    func place(_ node: OpaquePointer, before sibling: OpaquePointer)
    func appendChild(_ child: OpaquePointer, to parent: OpaquePointer)
    /// Unlinks `node` from the tree, keeping it for reuse.
    func detach(_ node: OpaquePointer)
    /// Unlinks and frees `node`.
    func discard(_ node: OpaquePointer)
}

extension WikiLinkTree {
    /// Replaces each `[[wiki link]]` and `![[embed]]` in the tree's text with a link or image
    /// to `resolve`'s destination, or with its plain label when `resolve` answers nil.
    ///
    /// The parser leaves `[[...]]` as text; adjacent text nodes must be joined first. Only text
    /// nodes are read, so code spans and code blocks are never touched, and text already inside
    /// a link or image is left alone rather than nesting links. A label that holds a code span
    /// or emphasis (`[[Note#part|`code`]]`) is split over several nodes: those are joined into
    /// one link whose label keeps them.
    func replaceWikiLinks(_ resolve: (WikiLink) -> String?) {
        for node in wikiLinkCandidates() {
            joinSplitLabel(startingAt: node, resolve)
            guard let literal = textLiteral(of: node) else { continue }
            let pieces = WikiLinkSyntax.pieces(of: literal)
            guard pieces.contains(where: { if case .link = $0 { true } else { false } }) else { continue }
            for piece in pieces {
                switch piece {
                case .text(let text):
                    if let replacement = makeText(text) { place(replacement, before: node) }
                case .link(let link):
                    guard let destination = resolve(link) else {
                        if let replacement = makeText(link.displayText) { place(replacement, before: node) }
                        continue
                    }
                    let isImage = link.isEmbed && WikiLinkResolver.isImage(destination)
                    let replacement = makeLink(to: destination, image: isImage)
                    if let label = makeText(isImage ? link.altText : link.displayText) { appendChild(label, to: replacement) }
                    place(replacement, before: node)
                }
            }
            discard(node)
        }
    }

    /// When `node` ends in `[[reference|` and the label goes on through code spans or emphasis
    /// to a later text node's `]]`, makes that one link (or, unresolved, leaves its label as it
    /// reads), shortening `node` to the text before `[[`.
    private func joinSplitLabel(startingAt node: OpaquePointer, _ resolve: (WikiLink) -> String?) {
        guard let literal = textLiteral(of: node), let open = literal.range(of: "[[", options: .backwards) else { return }
        let inner = literal[open.upperBound...]
        guard let bar = inner.firstIndex(of: "|"), !inner.contains("]"), !inner.contains("["),
              let parsed = WikiLinkSyntax.pieces(of: "[[" + inner[..<bar] + "]]").first,
              case .link(var link) = parsed else { return }
        // The label's middle: code spans and emphasis up to the text holding `]]` (a few at most).
        var middle: [OpaquePointer] = []
        var sibling = nextSibling(of: node)
        var closing: (node: OpaquePointer, close: Range<String.Index>, text: String)?
        while let current = sibling, middle.count < 16 {
            if isText(current) {
                guard let text = textLiteral(of: current), let close = text.range(of: "]]"),
                      !text[..<close.lowerBound].contains("["), !text[..<close.lowerBound].contains("]") else { return }
                closing = (current, close, text)
                break
            }
            guard mayBeLabel(current) else { return }
            middle.append(current)
            sibling = nextSibling(of: current)
        }
        guard let closing, !middle.isEmpty else { return }
        var before = String(literal[..<open.lowerBound])
        if before.hasSuffix("!") {
            link.isEmbed = true
            before.removeLast()
        }
        let labelHead = String(inner[inner.index(after: bar)...])
        let labelTail = String(closing.text[..<closing.close.lowerBound])
        link.label = labelHead + labelTail
        let container: OpaquePointer? = resolve(link).map { makeLink(to: $0, image: false) }
        var label: [OpaquePointer] = []
        if let head = makeText(labelHead) { label.append(head) }
        for part in middle {
            detach(part)
            label.append(part)
        }
        if let tail = makeText(labelTail) { label.append(tail) }
        for part in label {
            if let container { appendChild(part, to: container) } else { place(part, before: closing.node) }
        }
        if let container { place(container, before: closing.node) }
        setTextLiteral(closing.node, String(closing.text[closing.close.upperBound...]))
        setTextLiteral(node, before)
    }
}
