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
    /// what it should: comments go first (nothing inside them renders), then wiki links, tags
    /// and highlights in text, and callouts last, as they only regroup blocks.
    func applyObsidianFlavour(extensions: MarkdownExtensions) -> ObsidianFindings {
        consolidateText()
        removeComments()
        if let resolve = extensions.wikiLinks { replaceWikiLinks(resolve) }
        markHighlights()
        var findings = ObsidianFindings()
        findings.tags = markTags(linkingTo: extensions.tagLinks)
        labelMermaidBlocks()
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

    /// Whether `node` is the strikethrough extension's `~~deleted~~` (a type registered at run time).
    func isStrikethrough(_ node: OpaquePointer) -> Bool {
        guard let name = library.nodeGetTypeString(node) else { return false }
        return strcmp(name, "strikethrough") == 0
    }
}
