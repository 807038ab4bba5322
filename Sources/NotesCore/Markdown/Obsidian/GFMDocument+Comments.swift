#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GFMDocument {
    /// Leaves out Obsidian's `%%comments%%`, inline or spanning blocks: everything between two
    /// `%%` in text, in document order, is removed, with blocks left empty by it. A last `%%`
    /// without a partner stays text, so an unpaired one hides nothing. `%%` in code is code.
    func removeComments() {
        // Text nodes and the leaves between them, in document order.
        var leaves: [(node: OpaquePointer, isText: Bool)] = []
        var markers = 0
        forEachNode { node, event, type, _ in
            guard event == GFMEvent.enter else { return }
            if type == GFMNodeType.text {
                // Counted on the C string: most text holds no `%%`, and a Swift copy of every
                // literal was a large part of the pass.
                var cursor = library.nodeGetLiteral(node)
                while let found = cursor.flatMap({ strstr($0, "%%") }) {
                    markers += 1
                    cursor = UnsafePointer(found + 2)
                }
                leaves.append((node, true))
            } else if firstChild(of: node) == nil, type != GFMNodeType.document {
                leaves.append((node, false))
            }
        }
        guard markers >= 2 else { return }
        var remainingPairs = markers / 2
        var inComment = false
        var emptied: [OpaquePointer] = []
        for leaf in leaves {
            guard leaf.isText else {
                if inComment { emptied.append(contentsOf: parent(of: leaf.node).map { [$0] } ?? []); remove(leaf.node) }
                continue
            }
            guard let text = literal(of: leaf.node) else { continue }
            var kept = ""
            var rest = text[...]
            while true {
                if inComment {
                    guard let close = rest.firstRange(of: "%%") else { rest = rest[rest.endIndex...]; break }
                    inComment = false
                    remainingPairs -= 1
                    rest = rest[close.upperBound...]
                } else {
                    guard remainingPairs > 0, let open = rest.firstRange(of: "%%") else { break }
                    kept += rest[..<open.lowerBound]
                    inComment = true
                    rest = rest[open.upperBound...]
                }
            }
            kept += rest
            if kept != text {
                setLiteral(leaf.node, kept)
                if kept.isEmpty, let parent = parent(of: leaf.node) { emptied.append(parent) }
            }
        }
        removeEmptyBlocks(emptied)
    }

    /// Removes each of `candidates` left showing nothing, then its parent if that is left empty
    /// too. Each round finds the node by a fresh walk of the tree, so a node freed with an
    /// ancestor is never touched again (no node is made meanwhile, so no address is reused).
    private func removeEmptyBlocks(_ candidates: [OpaquePointer]) {
        var pending = Set(candidates)
        while !pending.isEmpty {
            var found: OpaquePointer?
            forEachNode { node, event, type, _ in
                guard found == nil, event == GFMEvent.enter, type != GFMNodeType.document, pending.contains(node) else { return }
                if isInvisible(node) { found = node } else { pending.remove(node) }
            }
            guard let node = found else { return }
            pending.remove(node)
            if let parent = parent(of: node) { pending.insert(parent) }
            remove(node)
        }
    }

    /// Whether `node` shows nothing: a paragraph, heading, quote, list, link, image or inline
    /// markup that holds only blank text and line breaks.
    private func isInvisible(_ node: OpaquePointer) -> Bool {
        let kind = type(of: node)
        switch kind {
        case GFMNodeType.text: return (literal(of: node) ?? "").allSatisfy(\.isWhitespace)
        case GFMNodeType.softBreak, GFMNodeType.lineBreak: return true
        case GFMNodeType.paragraph, GFMNodeType.heading, GFMNodeType.blockQuote, GFMNodeType.item, GFMNodeType.list,
             GFMNodeType.emphasis, GFMNodeType.strong, GFMNodeType.link:
            return children(of: node).allSatisfy(isInvisible)
        case GFMNodeType.image:
            // An image without alt text still shows; one whose alt text the comment took was in it.
            let children = children(of: node)
            return !children.isEmpty && children.allSatisfy(isInvisible)
        default:
            return isStrikethrough(node) && children(of: node).allSatisfy(isInvisible)
        }
    }
}
