/// A wiki link as Obsidian, Foam and Logseq write it: `[[Note]]`, `[[folder/Note|label]]`,
/// `[[Note#Heading]]`, `[[#Heading]]`, and the embed `![[image.png]]`.
public struct WikiLink: Sendable, Hashable {
    /// The file named, as written (`folder/Note`, `image.png`); empty for `[[#Heading]]`.
    public var target: String
    /// The heading after `#`, if any (for `Note#A#B`, the last one: `B`).
    public var heading: String?
    /// The text after `|`, if any.
    public var label: String?
    /// Whether it was written `![[...]]`.
    public var isEmbed: Bool

    public init(target: String, heading: String? = nil, label: String? = nil, isEmbed: Bool = false) {
        self.target = target
        self.heading = heading
        self.label = label
        self.isEmbed = isEmbed
    }

    /// The text shown for it: the label, else `Note > Heading` as Obsidian shows it, else the
    /// target. Also what an unresolved link renders as, so a page never shows raw `[[...]]`.
    public var displayText: String {
        if let label, !label.isEmpty, !isEmbed || !Self.isSize(label) { return label }
        switch (target.isEmpty, heading) {
        case (true, let heading?): return heading
        case (false, let heading?): return "\(target) > \(heading)"
        default: return target
        }
    }

    /// An embedded image's alt text: the label, unless it is Obsidian's size (`100`, `100x80`).
    var altText: String {
        if let label, !label.isEmpty, !Self.isSize(label) { return label }
        return target
    }

    private static func isSize(_ text: String) -> Bool {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        return parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}

/// Finds wiki links in one run of text.
enum WikiLinkSyntax {
    enum Piece: Equatable {
        case text(String)
        case link(WikiLink)
    }

    /// `text` cut into plain text and wiki links, in order. `[[` without a closing `]]`, or with
    /// a bracket or nothing inside, stays text.
    static func pieces(of text: String) -> [Piece] {
        var pieces: [Piece] = []
        var plain = Substring()
        var rest = text[...]
        while let open = rest.range(of: "[[") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "]]"), let link = parse(afterOpen[..<close.lowerBound]) else {
                // Not a link: keep the first bracket as text and look again from the second.
                plain = text[plain.startIndex..<rest.index(after: open.lowerBound)]
                rest = rest[rest.index(after: open.lowerBound)...]
                continue
            }
            var before = text[plain.startIndex..<open.lowerBound]
            var embedded = link
            if before.last == "!" {
                embedded.isEmbed = true
                before = before.dropLast()
            }
            if !before.isEmpty { pieces.append(.text(String(before))) }
            pieces.append(.link(embedded))
            rest = afterOpen[close.upperBound...]
            plain = rest[rest.startIndex..<rest.startIndex]
        }
        let tail = text[plain.startIndex...]
        if !tail.isEmpty { pieces.append(.text(String(tail))) }
        return pieces
    }

    /// The link inside `[[` and `]]`, or nil when it is not one.
    private static func parse(_ inner: Substring) -> WikiLink? {
        guard !inner.isEmpty, !inner.contains("["), !inner.contains("]") else { return nil }
        let bar = inner.firstIndex(of: "|")
        let reference = bar.map { inner[..<$0] } ?? inner
        let label = bar.map { String(inner[inner.index(after: $0)...]).trimmingASCIIWhitespace() }
        let parts = reference.split(separator: "#", omittingEmptySubsequences: false)
        let target = String(parts[0]).trimmingASCIIWhitespace()
        let heading = parts.count > 1 ? parts.dropFirst().last(where: { !$0.isEmpty }).map { String($0).trimmingASCIIWhitespace() } : nil
        guard !target.isEmpty || heading != nil else { return nil }
        return WikiLink(target: target, heading: heading, label: label, isEmbed: false)
    }
}
