/// An Obsidian callout's type: `> [!warning] Title`. Each kind has its colour and icon in the
/// stylesheet; the other names Obsidian accepts are aliases of these, and a type it does not
/// know renders as a note.
enum CalloutKind: String, CaseIterable {
    case note, abstract, info, todo, tip, success, question, warning, failure, danger, bug, example, quote

    private static let aliases: [String: CalloutKind] = [
        "summary": .abstract, "tldr": .abstract, "hint": .tip, "important": .tip, "check": .success, "done": .success,
        "help": .question, "faq": .question, "caution": .warning, "attention": .warning, "fail": .failure,
        "missing": .failure, "error": .danger, "cite": .quote,
    ]

    /// The kind a type name means (letter case ignored); unknown names are notes.
    init(named name: String) {
        let lowered = name.lowercased()
        self = CalloutKind(rawValue: lowered) ?? Self.aliases[lowered] ?? .note
    }
}

/// What opens a callout's first line: `[!type]`, then `+` (folded open) or `-` (folded shut).
struct CalloutHeader: Equatable {
    var kind: CalloutKind
    /// The type as written, shown as the title when the callout has none.
    var typeName: String
    /// nil: not foldable; true: foldable, open at first; false: foldable, closed.
    var foldedOpen: Bool?
    /// Where the title starts in the text read.
    var titleStart: String.Index

    /// The header at the start of `text`, or nil when it does not begin `[!type]`.
    init?(parsing text: String) {
        guard text.hasPrefix("[!"), let close = text.firstIndex(of: "]") else { return nil }
        let name = text[text.index(text.startIndex, offsetBy: 2)..<close]
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        kind = CalloutKind(named: String(name))
        typeName = String(name)
        var rest = text.index(after: close)
        foldedOpen = nil
        if rest < text.endIndex, text[rest] == "+" || text[rest] == "-" {
            foldedOpen = text[rest] == "+"
            rest = text.index(after: rest)
        }
        while rest < text.endIndex, text[rest] == " " || text[rest] == "\t" { rest = text.index(after: rest) }
        titleStart = rest
    }

    /// The title shown without one: the type name with its first letter in upper case.
    var defaultTitle: String {
        typeName.prefix(1).uppercased() + typeName.dropFirst().lowercased()
    }
}

extension GFMDocument {
    /// Turns each block quote that opens with `[!type]` into a callout: a `<div>` (or, for
    /// `+`/`-`, a `<details>`) with class `callout` and the kind in `data-callout`, its title
    /// (the rest of the first line, inline markup kept) above the quote's other content.
    /// The kind comes from a fixed list, so no note text reaches an attribute.
    /// `quotes` are the tree's block quotes in document order.
    func makeCallouts(_ quotes: [OpaquePointer]) {
        for quote in quotes {
            guard let paragraph = firstChild(of: quote), type(of: paragraph) == GFMNodeType.paragraph,
                  let first = firstChild(of: paragraph), type(of: first) == GFMNodeType.text,
                  let text = literal(of: first), let header = CalloutHeader(parsing: text) else { continue }
            // The title: the first line's inlines after the header.
            setLiteral(first, String(text[header.titleStart...]))
            let title = newNode(GFMNodeType.paragraph)
            var node: OpaquePointer? = first
            while let current = node, type(of: current) != GFMNodeType.softBreak, type(of: current) != GFMNodeType.lineBreak {
                node = next(after: current)
                move(current, to: title)
            }
            if let lineEnd = node { remove(lineEnd) }
            if firstChild(of: paragraph) == nil { remove(paragraph) }
            // Rendered in place: cmark-gfm's HTML renderer reads a paragraph's parent.
            insert(title, before: quote)
            var titleHTML = html(of: title)
            remove(title)
            if titleHTML.hasPrefix("<p>") { titleHTML.removeFirst(3) }
            if titleHTML.hasSuffix("</p>\n") { titleHTML.removeLast(5) }
            if titleHTML.hasSuffix("\n") { titleHTML.removeLast() }
            if titleHTML.allSatisfy(\.isWhitespace) { titleHTML = HTMLEscaping.escape(header.defaultTitle) }

            let kind = header.kind.rawValue
            let open: String, close: String
            if let foldedOpen = header.foldedOpen {
                open = "<details class=\"callout\" data-callout=\"\(kind)\"\(foldedOpen ? " open" : "")>\n<summary class=\"callout-title\">\(titleHTML)</summary>\n"
                close = "</details>\n"
            } else {
                open = "<div class=\"callout\" data-callout=\"\(kind)\">\n<div class=\"callout-title\">\(titleHTML)</div>\n"
                close = "</div>\n"
            }
            let content = children(of: quote)
            insert(newCustom(block: true, enter: open + (content.isEmpty ? "" : "<div class=\"callout-content\">\n"), exit: ""), before: quote)
            for child in content {
                library.nodeUnlink(child)
                insert(child, before: quote)
            }
            insert(newCustom(block: true, enter: (content.isEmpty ? "" : "</div>\n") + close, exit: ""), before: quote)
            remove(quote)
        }
    }
}
