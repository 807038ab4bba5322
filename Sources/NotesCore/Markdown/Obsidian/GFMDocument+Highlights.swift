#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GFMDocument {
    /// Turns `==text==` into `<mark>text</mark>`, as Obsidian does: within one paragraph,
    /// heading or cell, around any inline markup but links, never inside code.
    /// `containers` are the nodes (paragraphs, headings, emphasis...) whose text holds `==`,
    /// outside links and table cells (a cell may hold only the inlines cmark-gfm's table
    /// extension allows, and a `<mark>` is not one of them: there `==text==` stays text, as
    /// `$math$` does), in document order.
    func markHighlights(in containers: [OpaquePointer]) {
        for container in containers {
            var cursor = firstChild(of: container)
            while let current = cursor {
                cursor = wrapDelimited(startingAt: current, delimiter: "==") { [self] in newCustom(block: false, enter: "<mark>", exit: "</mark>") }
                    ?? next(after: current)
            }
        }
    }

    /// When the text node `start` holds an opening `delimiter` (followed by a non-space) closed
    /// later by one (preceded by a non-space), in the same node or a following sibling text
    /// node with only inline markup between, wraps what lies between in `makeWrapper()`'s node.
    /// Returns the node to continue from (the text after the closing delimiter), or nil when
    /// `start` holds no such pair.
    func wrapDelimited(startingAt start: OpaquePointer, delimiter: String, _ makeWrapper: () -> OpaquePointer) -> OpaquePointer? {
        // Most text holds no delimiter: looked for in the C string before any Swift copy is made.
        guard type(of: start) == GFMNodeType.text, let raw = library.nodeGetLiteral(start), strstr(raw, delimiter) != nil,
              let text = literal(of: start), let open = Self.opening(delimiter, in: text) else { return nil }
        let afterOpen = text[open.upperBound...]
        // Closed in the same node.
        if let close = Self.closing(delimiter, in: afterOpen) {
            let wrapper = makeWrapper()
            if let inner = newText(String(afterOpen[..<close.lowerBound])) { append(inner, to: wrapper) }
            return split(start, before: String(text[..<open.lowerBound]), wrapper: wrapper, after: String(afterOpen[close.upperBound...]))
        }
        // Closed in a later sibling, with inline markup between.
        var middle: [OpaquePointer] = []
        var sibling = next(after: start)
        while let current = sibling, middle.count < 64 {
            let kind = type(of: current)
            if kind == GFMNodeType.text, let closingText = literal(of: current),
               let close = Self.closing(delimiter, in: closingText[...], afterMarkup: !middle.isEmpty) {
                let wrapper = makeWrapper()
                if let head = newText(String(afterOpen)) { append(head, to: wrapper) }
                for node in middle { move(node, to: wrapper) }
                if let tail = newText(String(closingText[..<close.lowerBound])) { append(tail, to: wrapper) }
                insert(wrapper, before: current)
                setLiteral(start, String(text[..<open.lowerBound]))
                setLiteral(current, String(closingText[close.upperBound...]))
                return current
            }
            guard kind != GFMNodeType.link, kind != GFMNodeType.image, !GFMNodeType.isBlock(kind) else { return nil }
            middle.append(current)
            sibling = next(after: current)
        }
        return nil
    }

    /// Replaces the text node `node` by `before`, `wrapper` and `after`; returns the node for
    /// `after` (to continue scanning from), or the node after the wrapper.
    private func split(_ node: OpaquePointer, before: String, wrapper: OpaquePointer, after: String) -> OpaquePointer? {
        if let head = newText(before) { insert(head, before: node) }
        insert(wrapper, before: node)
        guard !after.isEmpty else {
            let following = next(after: node)
            remove(node)
            return following
        }
        setLiteral(node, after)
        return node
    }

    /// The first `delimiter` in `text` that can open: followed by a character that is not a
    /// space, or by the end of the node (markup follows).
    static func opening(_ delimiter: String, in text: String) -> Range<String.Index>? {
        var from = text.startIndex
        while let found = text[from...].firstRange(of: delimiter) {
            if found.upperBound == text.endIndex { return found }
            if !text[found.upperBound].isWhitespace, !text[found.upperBound...].hasPrefix(delimiter) { return found }
            from = text.index(after: found.lowerBound)
        }
        return nil
    }

    /// The first `delimiter` in `text` that can close: preceded by a character that is not a
    /// space, or, `afterMarkup`, by the start of the node.
    static func closing(_ delimiter: String, in text: Substring, afterMarkup: Bool = false) -> Range<String.Index>? {
        var from = text.startIndex
        while let found = text[from...].firstRange(of: delimiter) {
            if found.lowerBound == text.startIndex ? afterMarkup : !text[text.index(before: found.lowerBound)].isWhitespace { return found }
            from = text.index(after: found.lowerBound)
        }
        return nil
    }
}
