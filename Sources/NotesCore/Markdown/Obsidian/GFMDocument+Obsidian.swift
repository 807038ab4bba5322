#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the Obsidian passes found in a note, beyond its HTML.
struct ObsidianFindings {
    /// Inline `#tags`, without `#`, in order of appearance (repeats included).
    var tags: [String] = []
}

extension GFMDocument {
    /// Applies what Obsidian users write on top of GFM, in an order where each pass sees only
    /// what it should: comments go first (nothing inside them renders), then note embeds (given
    /// by `embed`, already rendered) and wiki links, tags and highlights in text; then links are
    /// treated as the caller asks and, with `refusingUnsafeLinks`, a link to a refused scheme
    /// becomes its text; callouts come last, as they only regroup blocks (and render their
    /// titles, links included, in place).
    func applyObsidianFlavour(extensions: MarkdownExtensions, refusingUnsafeLinks: Bool,
                              embed: (WikiLink) -> String?) -> ObsidianFindings {
        consolidateText()
        removeComments()
        if extensions.noteEmbeds != nil { embedNotes(resolve: extensions.wikiLinks, render: embed) }
        if let resolve = extensions.wikiLinks { replaceWikiLinks(resolve) }
        markHighlights()
        var findings = ObsidianFindings()
        findings.tags = markTags(linkingTo: extensions.tagLinks)
        labelMermaidBlocks()
        if let treat = extensions.linkTreatment { treatLinks(treat) }
        if refusingUnsafeLinks { unwrapRefusedLinks() }
        makeCallouts()
        return findings
    }
}

extension GFMDocument: WikiLinkTree {
    func wikiLinkCandidates() -> [OpaquePointer] {
        var candidates: [OpaquePointer] = []
        forEachNode { node, event, type, insideLink in
            guard event == GFMEvent.enter, !insideLink, type == GFMNodeType.text,
                  let literal = library.nodeGetLiteral(node), strstr(literal, "[[") != nil else { return }
            candidates.append(node)
        }
        return candidates
    }

    func textLiteral(of node: OpaquePointer) -> String? { literal(of: node) }
    func setTextLiteral(_ node: OpaquePointer, _ text: String) { setLiteral(node, text) }
    func nextSibling(of node: OpaquePointer) -> OpaquePointer? { next(after: node) }
    func isText(_ node: OpaquePointer) -> Bool { type(of: node) == GFMNodeType.text }

    func mayBeLabel(_ node: OpaquePointer) -> Bool {
        let type = type(of: node)
        return type == GFMNodeType.code || type == GFMNodeType.emphasis || type == GFMNodeType.strong || isStrikethrough(node)
    }

    func makeText(_ text: String) -> OpaquePointer? { newText(text) }

    func makeLink(to url: String, image: Bool) -> OpaquePointer {
        let node = newNode(image ? GFMNodeType.image : GFMNodeType.link)
        setURL(node, url)
        return node
    }

    func place(_ node: OpaquePointer, before sibling: OpaquePointer) { insert(node, before: sibling) }
    func appendChild(_ child: OpaquePointer, to parent: OpaquePointer) { append(child, to: parent) }
    func detach(_ node: OpaquePointer) { library.nodeUnlink(node) }
    func discard(_ node: OpaquePointer) { remove(node) }

    /// Whether `node` is a cell of the table extension's tables (a type registered at run time),
    /// which refuses every inline it does not know, the renderer's own custom ones included.
    func isTableCell(_ node: OpaquePointer) -> Bool {
        guard let name = library.nodeGetTypeString(node) else { return false }
        return strcmp(name, "table_cell") == 0
    }

    /// Whether `node` is the strikethrough extension's `~~deleted~~` (a type registered at run time).
    func isStrikethrough(_ node: OpaquePointer) -> Bool {
        guard let name = library.nodeGetTypeString(node) else { return false }
        return strcmp(name, "strikethrough") == 0
    }
}
