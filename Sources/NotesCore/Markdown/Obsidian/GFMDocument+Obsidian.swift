#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the Obsidian passes found in a note, beyond its HTML.
struct ObsidianFindings {
    /// Inline `#tags`, without `#`, in order of appearance (repeats included).
    var tags: [String] = []
    /// The headings, in document order, for the title and heading ids.
    var headings: [OpaquePointer] = []
}

/// Which of the Obsidian passes a note's Markdown may need, from one look at its bytes: a pass
/// whose delimiter the note never writes has nothing to do, and is not run. Each pass over the
/// tree is a walk of every node, which cost more than parsing.
struct ObsidianSyntax {
    var comments = true
    var wikiLinks = true
    var embeds = true
    var highlights = true
    var tags = true
    var callouts = true

    init(_ markdown: UnsafeBufferPointer<UInt8>) {
        func holds(_ needle: StaticString) -> Bool { ByteSearch.firstOffset(of: needle, in: markdown) != nil }
        comments = holds("%%")
        wikiLinks = holds("[[")
        embeds = wikiLinks && holds("![[")
        highlights = holds("==")
        tags = holds("#")
        callouts = holds("[!")
    }
}

/// The nodes the passes after wiki links work on, found in one walk of the tree.
private struct ObsidianNodes {
    /// Containers of text holding `==`, outside links and table cells.
    var highlightContainers: [OpaquePointer] = []
    /// Text holding `#`, outside links and table cells.
    var tagCandidates: [OpaquePointer] = []
    var codeBlocks: [OpaquePointer] = []
    /// Links and images.
    var links: [OpaquePointer] = []
    var blockQuotes: [OpaquePointer] = []
    var headings: [OpaquePointer] = []
}

extension GFMDocument {
    /// Applies what Obsidian users write on top of GFM, in an order where each pass sees only
    /// what it should: comments go first (nothing inside them renders), then note embeds (given
    /// by `embed`, already rendered) and wiki links; then, on the nodes one walk finds, tags and
    /// highlights in text and Mermaid blocks; links are treated as the caller asks and, with
    /// `refusingUnsafeLinks`, a link to a refused scheme becomes its text; callouts come last,
    /// as they only regroup blocks (and render their titles, links included, in place).
    /// `syntax` says which passes the note may need.
    func applyObsidianFlavour(extensions: MarkdownExtensions, syntax: ObsidianSyntax, refusingUnsafeLinks: Bool,
                              embed: (WikiLink) -> String?) -> ObsidianFindings {
        // The passes before the walk read whole runs of text (`[[`, `%%` split at a bracket):
        // they join text first; otherwise the walk joins it as it goes.
        let embeds = syntax.embeds && extensions.noteEmbeds != nil
        let wikiLinks = syntax.wikiLinks ? extensions.wikiLinks : nil
        let textJoined = syntax.comments || embeds || wikiLinks != nil
        if textJoined { consolidateText() }
        if syntax.comments { removeComments() }
        if embeds { embedNotes(resolve: extensions.wikiLinks, render: embed) }
        if let wikiLinks { replaceWikiLinks(wikiLinks) }
        let nodes = collectNodes(syntax, joiningText: !textJoined)
        var findings = ObsidianFindings()
        // Tags before highlights: a highlight's delimiters then find the tag's element between
        // them as any other markup, and no text node the tag pass holds has been replaced.
        if syntax.tags { findings.tags = markTags(nodes.tagCandidates, linkingTo: extensions.tagLinks) }
        if syntax.highlights { markHighlights(in: nodes.highlightContainers) }
        labelMermaidBlocks(nodes.codeBlocks)
        if extensions.linkTreatment != nil || refusingUnsafeLinks {
            treatLinks(nodes.links, extensions.linkTreatment, refusingUnsafe: refusingUnsafeLinks)
        }
        if syntax.callouts { makeCallouts(nodes.blockQuotes) }
        findings.headings = nodes.headings
        return findings
    }

    /// The nodes the later passes need, in document order, in one walk (which joins adjacent
    /// text first, with `joiningText`).
    private func collectNodes(_ syntax: ObsidianSyntax, joiningText: Bool) -> ObsidianNodes {
        var nodes = ObsidianNodes()
        var containers = Set<OpaquePointer>()
        forEachNode(joiningText: joiningText) { node, event, type, insideLink in
            guard event == GFMEvent.enter else { return }
            switch type {
            case GFMNodeType.text:
                guard !insideLink, let literal = library.nodeGetLiteral(node) else { return }
                let hasTag = syntax.tags && strchr(literal, Int32(UInt8(ascii: "#"))) != nil
                let hasMark = syntax.highlights && strstr(literal, "==") != nil
                guard hasTag || hasMark, let parent = parent(of: node), !isTableCell(parent) else { return }
                if hasTag { nodes.tagCandidates.append(node) }
                if hasMark, containers.insert(parent).inserted { nodes.highlightContainers.append(parent) }
            case GFMNodeType.link, GFMNodeType.image: nodes.links.append(node)
            case GFMNodeType.codeBlock: nodes.codeBlocks.append(node)
            case GFMNodeType.blockQuote: nodes.blockQuotes.append(node)
            case GFMNodeType.heading: nodes.headings.append(node)
            default: break
            }
        }
        return nodes
    }

    /// The plain text of the first of `headings`, or nil when there is none or it is empty.
    func firstHeadingText(_ headings: [OpaquePointer]) -> String? {
        guard let first = headings.first else { return nil }
        let title = plainText(of: first)
        return title.isEmpty ? nil : title
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
