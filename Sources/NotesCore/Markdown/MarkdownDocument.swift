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

    /// Visits every link and image once, replacing its destination with `rewrite`'s answer (nil
    /// keeps it), and returns the text of the first heading, if any.
    func rewriteLinksAndFindTitle(_ rewrite: (LinkDestination) -> String?) -> String? {
        guard let iterator = cmark_iter_new(root) else { preconditionFailure("cmark_iter_new returned NULL") }
        defer { cmark_iter_free(iterator) }
        var title: String?
        var inFirstHeading = false
        var titleText = ""
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_HEADING, title == nil {
                inFirstHeading = event == CMARK_EVENT_ENTER
                if !inFirstHeading { title = titleText.trimmingASCIIWhitespace() }
                continue
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
                if let replacement = rewrite(destination), replacement != destination.url {
                    _ = cmark_node_set_url(node, replacement)
                }
            }
        }
        guard let title, !title.isEmpty else { return nil }
        return title
    }

    /// The HTML of the whole tree, with the options it was parsed with.
    func html() -> String {
        guard let html = cmark_render_html(root, options) else { return "" }
        defer { free(html) }
        return String(cString: html)
    }
}

@available(*, unavailable)
extension MarkdownDocument: Sendable {}

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
