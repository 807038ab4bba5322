#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Obsidian's inline tags: `#tag` and `#nested/tag`, found in text.
enum ObsidianTag {
    /// The tags in `text` with their ranges (the `#` included). A tag starts with `#` at the
    /// start of the text or after a space or an opening bracket, and runs over letters, digits,
    /// `_`, `-` and `/`; it needs one character that is not a digit (`#1` is a number), and
    /// does not end in `/`.
    static func find(in text: String) -> [(range: Range<String.Index>, name: String)] {
        var found: [(Range<String.Index>, String)] = []
        var index = text.startIndex
        var previous: Character?
        while index < text.endIndex {
            let character = text[index]
            guard character == "#", previous.map(Self.mayPrecede) ?? true else {
                previous = character
                index = text.index(after: index)
                continue
            }
            var end = text.index(after: index)
            while end < text.endIndex, Self.isTagCharacter(text[end]) { end = text.index(after: end) }
            var name = text[text.index(after: index)..<end]
            while name.last == "/" { name = name.dropLast() }
            if !name.isEmpty, name.contains(where: { !$0.isNumber }), name.first != "/" {
                let range = index..<name.endIndex
                found.append((range, String(name)))
                index = range.upperBound
                previous = name.last
            } else {
                previous = character
                index = text.index(after: index)
            }
        }
        return found
    }

    static func isTagCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-" || character == "/"
            || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark }
    }

    private static func mayPrecede(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == "[" || character == "\u{00A0}"
    }
}

extension GFMDocument {
    /// Turns each inline `#tag` in text (never in code, links or headings' markers) into a link
    /// to `link(tag)`'s destination with class `tag`, or, when `link` is nil or answers nil or a
    /// refused scheme, into `<span class="tag">`. Returns the tags found, in order.
    /// `candidates` are the text nodes holding `#` outside links and table cells (in a cell a
    /// tag stays text: the table extension refuses the tag's element), in document order.
    func markTags(_ candidates: [OpaquePointer], linkingTo link: ((String) -> String?)?) -> [String] {
        var tags: [String] = []
        for node in candidates {
            guard let text = literal(of: node) else { continue }
            let found = ObsidianTag.find(in: text)
            guard !found.isEmpty else { continue }
            var last = text.startIndex
            for tag in found {
                if let before = newText(String(text[last..<tag.range.lowerBound])) { insert(before, before: node) }
                let href = link?(tag.name).flatMap { LinkSafety.isRefused($0) ? nil : $0 }
                let wrapper = href.map { newCustom(block: false, enter: "<a class=\"tag\" href=\"\(HTMLEscaping.escape($0))\">", exit: "</a>") }
                    ?? newCustom(block: false, enter: "<span class=\"tag\">", exit: "</span>")
                if let label = newText(String(text[tag.range])) { append(label, to: wrapper) }
                insert(wrapper, before: node)
                tags.append(tag.name)
                last = tag.range.upperBound
            }
            if let after = newText(String(text[last...])) { insert(after, before: node) }
            remove(node)
        }
        return tags
    }
}
