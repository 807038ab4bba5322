import CCmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One parsed cmark syntax tree: the only owner of its `cmark_node` root, freed in `deinit`.
///
/// Rendering through a tree (rather than `cmark_markdown_to_html`) lets a caller rewrite link
/// destinations and read the title in the same single parse, which export needs for every note.
/// The tree is mutable C state, so it never crosses threads.
final class MarkdownDocument {
    private let root: OpaquePointer
    private let options: Int32

    /// Parses `markdown` (UTF-8 bytes) with cmark `options`.
    init(parsing markdown: UnsafeBufferPointer<UInt8>, options: Int32) {
        self.options = options
        let options = Self.parseOptions(options, for: markdown)
        let parsed = markdown.withMemoryRebound(to: CChar.self) { chars -> OpaquePointer? in
            // cmark accepts a NULL buffer only with length 0; give it a real empty string instead.
            guard let base = chars.baseAddress, !chars.isEmpty else { return cmark_parse_document("", 0, options) }
            return cmark_parse_document(base, chars.count, options)
        }
        // cmark only returns NULL when malloc fails, where it aborts by itself first.
        guard let parsed else { preconditionFailure("cmark_parse_document returned NULL") }
        root = parsed
    }

    deinit {
        cmark_node_free(root)
    }

    /// `options` for parsing `markdown`, without `CMARK_OPT_VALIDATE_UTF8` when the bytes are
    /// valid UTF-8 already: the option only repairs invalid sequences, and checks slower than
    /// `UTF8Validation` does.
    static func parseOptions(_ options: Int32, for markdown: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard options & CMARK_OPT_VALIDATE_UTF8 != 0, UTF8Validation.isValid(markdown) else { return options }
        return options & ~CMARK_OPT_VALIDATE_UTF8
    }

    /// Visits every link and image once, replacing its destination with `rewrite`'s answer (nil
    /// keeps it), and returns the text of the first heading, if any.
    func rewriteLinksAndFindTitle(_ rewrite: (LinkDestination) -> String?) -> String? {
        rewriteLinks(rewrite, findingRefused: false, findingHeadings: false).title
    }

    /// What one walk of the tree by `rewriteLinks` found.
    struct LinkScan {
        /// The text of the first heading, if any.
        var title: String?
        /// The links whose destination (as rewritten) safe mode refuses, for `unwrap(_:)`.
        var refusedLinks: [OpaquePointer] = []
        /// Every heading in document order, for `addHeadingIDs(to:)`.
        var headings: [OpaquePointer] = []
    }

    /// Visits every link and image once, replacing its destination with `rewrite`'s answer (nil
    /// keeps it), and finds the title, and on request the refused links and the headings.
    ///
    /// One walk instead of three: export renders every note this way, and each walk of a tree
    /// crosses into cmark several times per node.
    func rewriteLinks(_ rewrite: (LinkDestination) -> String?, findingRefused: Bool, findingHeadings: Bool) -> LinkScan {
        guard let iterator = cmark_iter_new(root) else { preconditionFailure("cmark_iter_new returned NULL") }
        defer { cmark_iter_free(iterator) }
        var scan = LinkScan()
        var inFirstHeading = false
        var titleText = ""
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_HEADING {
                if findingHeadings, event == CMARK_EVENT_ENTER { scan.headings.append(node) }
                if scan.title == nil {
                    inFirstHeading = event == CMARK_EVENT_ENTER
                    if !inFirstHeading { scan.title = titleText.trimmingASCIIWhitespace() }
                    continue
                }
            }
            // Containers come twice (enter and exit); leaves only as enter.
            guard event == CMARK_EVENT_ENTER else { continue }
            if inFirstHeading {
                switch type {
                case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                    if let literal = cmark_node_get_literal(node) { titleText += String(cString: literal) }
                case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                    titleText += " "
                default:
                    break  // raw HTML never becomes title text
                }
            }
            if type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE, let url = cmark_node_get_url(node) {
                let destination = LinkDestination(url: String(cString: url), isImage: type == CMARK_NODE_IMAGE)
                var final = destination.url
                if let replacement = rewrite(destination), replacement != destination.url {
                    _ = cmark_node_set_url(node, replacement)
                    final = replacement
                }
                // Every refused destination has a scheme: most links (relative ones) are settled by the `:`.
                if findingRefused, type == CMARK_NODE_LINK, final.utf8.contains(UInt8(ascii: ":")), LinkSafety.isRefused(final) {
                    scan.refusedLinks.append(node)
                }
            }
        }
        if let title = scan.title, title.isEmpty { scan.title = nil }
        return scan
    }

    /// Turns every link whose destination safe mode refuses (`javascript:`, `vbscript:`,
    /// `file:`, non-image `data:`) into its bare content: cmark would only empty the `href`,
    /// leaving an `<a href="">` that looks live and reloads the page when clicked.
    func unwrapRefusedLinks() {
        var refused: [OpaquePointer] = []
        forEachNode { node, event, _ in
            guard event == CMARK_EVENT_ENTER, cmark_node_get_type(node) == CMARK_NODE_LINK,
                  // Every refused destination has a scheme: most links (relative ones) need no String.
                  let url = cmark_node_get_url(node), strchr(url, Int32(UInt8(ascii: ":"))) != nil,
                  LinkSafety.isRefused(String(cString: url)) else { return }
            refused.append(node)
        }
        unwrap(refused)
    }

    /// Replaces each of `links` (links or images) by its content, in the order given: innermost
    /// first where one holds another (cmark never nests a link in a link, but an image may sit
    /// in one).
    func unwrap<Links: Sequence<OpaquePointer>>(_ links: Links) {
        for link in links {
            while let child = cmark_node_first_child(link) {
                cmark_node_unlink(child)
                _ = cmark_node_insert_before(link, child)
            }
            cmark_node_unlink(link)
            cmark_node_free(link)
        }
    }

    /// Gives every heading an `id` (GitHub-style slug, `-1`, `-2` for repeats) and returns the
    /// ids in document order.
    ///
    /// cmark's HTML renderer has no attribute for headings, so each heading is rendered on its
    /// own (with the same options, safe mode included) and replaced by a custom block holding
    /// that HTML with the id added. Only the opening tag changes: the rest is cmark's output.
    @discardableResult
    func addHeadingIDs() -> [String] {
        var headings: [OpaquePointer] = []
        forEachNode { node, event, _ in
            if event == CMARK_EVENT_ENTER, cmark_node_get_type(node) == CMARK_NODE_HEADING { headings.append(node) }
        }
        return addHeadingIDs(to: headings)
    }

    /// `addHeadingIDs()` for `headings`, every heading of the tree in document order.
    @discardableResult
    func addHeadingIDs(to headings: [OpaquePointer]) -> [String] {
        var slugger = HeadingSlugger()
        var ids: [String] = []
        for heading in headings {
            let id = slugger.slug(for: Self.plainText(of: heading))
            ids.append(id)
            guard let rendered = cmark_render_html(heading, options) else { continue }
            var html = String(cString: rendered)
            free(rendered)
            let level = cmark_node_get_heading_level(heading)
            let open = "<h\(level)>"
            guard html.hasPrefix(open), let block = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK) else { continue }
            html = "<h\(level) id=\"\(HTMLEscaping.escape(id))\">" + html.dropFirst(open.count)
            _ = cmark_node_set_on_enter(block, html)
            _ = cmark_node_set_on_exit(block, "")
            _ = cmark_node_insert_before(heading, block)
            cmark_node_unlink(heading)
            cmark_node_free(heading)
        }
        return ids
    }

    /// The HTML of the whole tree, with the options it was parsed with.
    func html() -> String {
        withHTML { String(decoding: $0, as: UTF8.self) }
    }

    /// Lends the HTML of the whole tree to `body` as cmark wrote it, without a copy.
    func withHTML<Value>(_ body: (UnsafeBufferPointer<UInt8>) -> Value) -> Value {
        guard let html = cmark_render_html(root, options) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        defer { free(html) }
        let length = strlen(html)
        return html.withMemoryRebound(to: UInt8.self, capacity: length) { body(UnsafeBufferPointer(start: $0, count: length)) }
    }
}

extension MarkdownDocument {
    /// `withHTML(_:)`, when cmark's safe-mode HTML shows no link whose destination safe mode
    /// refused; nil, without calling `body`, when it may hold one.
    ///
    /// cmark renders such a link as `<a href=""` (as it does an empty destination, `[text]()`),
    /// and nothing else in safe-mode output can read so: text escapes `<` and raw HTML is omitted.
    /// One `strstr` over the output is far cheaper than walking the tree for links.
    func withHTMLShowingNoRefusedLink<Value>(_ body: (UnsafeBufferPointer<UInt8>) -> Value) -> Value? {
        guard let html = cmark_render_html(root, options) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        defer { free(html) }
        guard strstr(html, "<a href=\"\"") == nil else { return nil }
        let length = strlen(html)
        return html.withMemoryRebound(to: UInt8.self, capacity: length) { body(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Calls `body` for each iterator event, with whether the node is inside a link or image.
    func forEachNode(_ body: (OpaquePointer, cmark_event_type, Bool) -> Void) {
        guard let iterator = cmark_iter_new(root) else { preconditionFailure("cmark_iter_new returned NULL") }
        defer { cmark_iter_free(iterator) }
        var linkDepth = 0
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            let isLink = type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE
            if isLink, event == CMARK_EVENT_EXIT { linkDepth -= 1 }
            body(node, event, linkDepth > 0)
            if isLink, event == CMARK_EVENT_ENTER { linkDepth += 1 }
        }
    }

    /// A new text node holding `text`, or nil for empty text.
    private static func textNode(_ text: String) -> OpaquePointer? {
        guard !text.isEmpty, let node = cmark_node_new(CMARK_NODE_TEXT) else { return nil }
        _ = cmark_node_set_literal(node, text)
        return node
    }

    /// The plain text under `node`: text and code literals, a space for each line break.
    static func plainText(of node: OpaquePointer) -> String {
        guard let iterator = cmark_iter_new(node) else { return "" }
        defer { cmark_iter_free(iterator) }
        var text = ""
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let child = cmark_iter_get_node(iterator) else { continue }
            switch cmark_node_get_type(child) {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                if let literal = cmark_node_get_literal(child) { text += String(cString: literal) }
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                text += " "
            default:
                break
            }
        }
        return text.trimmingASCIIWhitespace()
    }
}

@available(*, unavailable)
extension MarkdownDocument: Sendable {}

extension MarkdownDocument: WikiLinkTree {
    func wikiLinkCandidates() -> [OpaquePointer] {
        // cmark splits `[[...]]` over several text nodes at each bracket: join them first.
        cmark_consolidate_text_nodes(root)
        var candidates: [OpaquePointer] = []
        forEachNode { node, event, insideLink in
            guard event == CMARK_EVENT_ENTER, !insideLink, cmark_node_get_type(node) == CMARK_NODE_TEXT,
                  let literal = cmark_node_get_literal(node), strstr(literal, "[[") != nil else { return }
            candidates.append(node)
        }
        return candidates
    }

    func textLiteral(of node: OpaquePointer) -> String? { cmark_node_get_literal(node).map { String(cString: $0) } }
    func setTextLiteral(_ node: OpaquePointer, _ text: String) { _ = cmark_node_set_literal(node, text) }
    func nextSibling(of node: OpaquePointer) -> OpaquePointer? { cmark_node_next(node) }
    func isText(_ node: OpaquePointer) -> Bool { cmark_node_get_type(node) == CMARK_NODE_TEXT }

    func mayBeLabel(_ node: OpaquePointer) -> Bool {
        let type = cmark_node_get_type(node)
        return type == CMARK_NODE_CODE || type == CMARK_NODE_EMPH || type == CMARK_NODE_STRONG
    }

    func makeText(_ text: String) -> OpaquePointer? { Self.textNode(text) }

    func makeLink(to url: String, image: Bool) -> OpaquePointer {
        guard let node = cmark_node_new(image ? CMARK_NODE_IMAGE : CMARK_NODE_LINK) else { preconditionFailure("cmark_node_new returned NULL") }
        _ = cmark_node_set_url(node, url)
        return node
    }

    func place(_ node: OpaquePointer, before sibling: OpaquePointer) { _ = cmark_node_insert_before(sibling, node) }
    func appendChild(_ child: OpaquePointer, to parent: OpaquePointer) { _ = cmark_node_append_child(parent, child) }
    func detach(_ node: OpaquePointer) { cmark_node_unlink(node) }

    func discard(_ node: OpaquePointer) {
        cmark_node_unlink(node)
        cmark_node_free(node)
    }
}

/// A link or image destination as written in a note (entities and backslash escapes resolved).
public struct LinkDestination: Sendable, Hashable {
    /// The destination, such as `other.md#part` or `https://example.com`.
    public var url: String
    /// Whether it belongs to an image (`![alt](url)`) rather than a link.
    public var isImage: Bool

    public init(url: String, isImage: Bool) {
        self.url = url
        self.isImage = isImage
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
