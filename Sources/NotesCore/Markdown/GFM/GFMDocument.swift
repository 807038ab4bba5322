#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One syntax tree parsed by cmark-gfm with the GFM extensions attached: the only user of its
/// parser and root node, both in cmark-gfm's arena (see `CmarkGFM`), so they are freed when the
/// `CmarkGFM.exclusively` that made them ends, never by this object.
///
/// The parser lives as long as the tree because rendering needs its list of attached
/// extensions (a table renders through the table extension). The tree is mutable C state, so
/// it never crosses threads.
final class GFMDocument {
    let library: CmarkGFM
    let root: OpaquePointer
    private let parser: OpaquePointer
    let options: Int32

    /// Parses `markdown` (UTF-8 bytes) with cmark-gfm `options`, the extensions named and, with
    /// `math`, the `$…$` extension.
    init(parsing markdown: UnsafeBufferPointer<UInt8>, options: Int32, extensions: [String], math: Bool = false, library: CmarkGFM) {
        self.library = library
        self.options = options
        // cmark-gfm only returns NULL when malloc fails, where it aborts by itself first.
        guard let parser = library.parserNew(options, library.arena) else { preconditionFailure("cmark_parser_new returned NULL") }
        for name in extensions {
            if let extensionHandle = library.findSyntaxExtension(name) { _ = library.parserAttachSyntaxExtension(parser, extensionHandle) }
        }
        if math { _ = library.parserAttachSyntaxExtension(parser, library.mathExtension) }
        markdown.withMemoryRebound(to: CChar.self) { chars in
            if let base = chars.baseAddress, !chars.isEmpty { library.parserFeed(parser, base, chars.count) }
        }
        guard let root = library.parserFinish(parser) else { preconditionFailure("cmark_parser_finish returned NULL") }
        self.parser = parser
        self.root = root
    }

    /// The HTML of the whole tree, rendered with the options and extensions it was parsed with.
    func html() -> String {
        html(of: root)
    }

    /// The HTML of `node` and its children alone. `node` must be in the tree: cmark-gfm's
    /// renderer reads a paragraph's parent without checking it.
    func html(of node: OpaquePointer) -> String {
        withHTML(of: node) { String(decoding: $0, as: UTF8.self) }
    }

    /// Renders `node` (the whole tree by default) and lends the HTML's bytes to `body`, valid
    /// only during the call: for a caller that passes them on, with no copy into a `String`.
    func withHTML<Value>(of node: OpaquePointer? = nil, _ body: (UnsafeBufferPointer<UInt8>) -> Value) -> Value {
        let node = node ?? root
        precondition(node == root || parent(of: node) != nil, "cmark-gfm cannot render a detached node")
        guard let rendered = library.renderHTML(node, options, library.parserGetSyntaxExtensions(parser), library.defaultAllocator) else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        defer { library.release(rendered) }
        let length = strlen(rendered)
        return rendered.withMemoryRebound(to: UInt8.self, capacity: length) { body(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Calls `body` for each iterator event (containers come twice, enter and exit; leaves
    /// once, as enter), with the node's type and whether it sits inside a link or image.
    /// With `joiningText`, text that directly follows text is first joined into it, as
    /// `consolidateText` would (the parser joins what it made; a pass may leave more): so one
    /// walk both joins and visits, and `body` sees each run of text as one node.
    func forEachNode(under start: OpaquePointer? = nil, joiningText: Bool = false,
                     _ body: (OpaquePointer, _ event: UInt32, _ type: UInt32, _ insideLink: Bool) -> Void) {
        guard let iterator = library.iterNew(start ?? root) else { preconditionFailure("cmark_iter_new returned NULL") }
        defer { library.iterFree(iterator) }
        var linkDepth = 0
        while true {
            let event = library.iterNext(iterator)
            if event == GFMEvent.done { break }
            guard let node = library.iterGetNode(iterator) else { continue }
            let type = library.nodeGetType(node)
            if joiningText, type == GFMNodeType.text { joinText(following: node, iterator: iterator) }
            let isLink = type == GFMNodeType.link || type == GFMNodeType.image
            if isLink, event == GFMEvent.exit { linkDepth -= 1 }
            body(node, event, type, linkDepth > 0)
            if isLink, event == GFMEvent.enter { linkDepth += 1 }
        }
    }

    /// Joins the text nodes right after the text `node` into it. The iterator, standing on
    /// `node`, has already chosen the next sibling as its next stop: it is moved past each
    /// node before that node is freed, as `cmark_consolidate_text_nodes` does.
    private func joinText(following node: OpaquePointer, iterator: OpaquePointer) {
        guard let first = next(after: node), type(of: first) == GFMNodeType.text else { return }
        var joined = literal(of: node) ?? ""
        var following: OpaquePointer? = first
        while let current = following, type(of: current) == GFMNodeType.text {
            _ = library.iterNext(iterator)
            joined += literal(of: current) ?? ""
            following = next(after: current)
            remove(current)
        }
        setLiteral(node, joined)
    }

    /// The nodes of `type` in document order, each once (on enter).
    func nodes(ofType wanted: UInt32) -> [OpaquePointer] {
        var found: [OpaquePointer] = []
        forEachNode { node, event, type, _ in
            if event == GFMEvent.enter, type == wanted { found.append(node) }
        }
        return found
    }

    func type(of node: OpaquePointer) -> UInt32 { library.nodeGetType(node) }

    /// The literal of a text, code or HTML node.
    func literal(of node: OpaquePointer) -> String? {
        library.nodeGetLiteral(node).map { String(cString: $0) }
    }

    func setLiteral(_ node: OpaquePointer, _ text: String) {
        _ = library.nodeSetLiteral(node, text)
    }

    func url(of node: OpaquePointer) -> String {
        library.nodeGetURL(node).map { String(cString: $0) } ?? ""
    }

    func setURL(_ node: OpaquePointer, _ url: String) {
        _ = library.nodeSetURL(node, url)
    }

    /// The info string of a fenced code block (`swift` in ```` ```swift ````), or "".
    func fenceInfo(of node: OpaquePointer) -> String {
        library.nodeGetFenceInfo(node).map { String(cString: $0) } ?? ""
    }

    func firstChild(of node: OpaquePointer) -> OpaquePointer? { library.nodeFirstChild(node) }
    func next(after node: OpaquePointer) -> OpaquePointer? { library.nodeNext(node) }
    func parent(of node: OpaquePointer) -> OpaquePointer? { library.nodeParent(node) }

    /// The children of `node`, in order (a snapshot: safe to unlink them while iterating).
    func children(of node: OpaquePointer) -> [OpaquePointer] {
        var found: [OpaquePointer] = []
        var child = firstChild(of: node)
        while let current = child {
            found.append(current)
            child = next(after: current)
        }
        return found
    }

    /// A new text node holding `text`, or nil for empty text.
    func newText(_ text: String) -> OpaquePointer? {
        guard !text.isEmpty, let node = library.nodeNew(GFMNodeType.text) else { return nil }
        setLiteral(node, text)
        return node
    }

    /// A new node of `type` (link, image, custom inline or block) with no children.
    func newNode(_ type: UInt32) -> OpaquePointer {
        guard let node = library.nodeNew(type) else { preconditionFailure("cmark_node_new returned NULL") }
        return node
    }

    /// A custom inline or block node that renders `enter` before its children and `exit` after:
    /// trusted HTML written by this renderer, every piece of note text in it escaped.
    func newCustom(block: Bool, enter: String, exit: String) -> OpaquePointer {
        let node = newNode(block ? GFMNodeType.customBlock : GFMNodeType.customInline)
        _ = library.nodeSetOnEnter(node, enter)
        _ = library.nodeSetOnExit(node, exit)
        return node
    }

    func insert(_ node: OpaquePointer, before sibling: OpaquePointer) {
        _ = library.nodeInsertBefore(sibling, node)
    }

    func append(_ child: OpaquePointer, to parent: OpaquePointer) {
        _ = library.nodeAppendChild(parent, child)
    }

    /// Unlinks `node` from the tree and frees it with its children.
    func remove(_ node: OpaquePointer) {
        library.nodeUnlink(node)
        library.nodeFree(node)
    }

    /// Moves `node`'s children before it, then removes it: a link becomes its text.
    func unwrap(_ node: OpaquePointer) {
        while let child = firstChild(of: node) {
            library.nodeUnlink(child)
            insert(child, before: node)
        }
        remove(node)
    }

    /// Moves `node` (and its children) to the end of `parent`'s children.
    func move(_ node: OpaquePointer, to parent: OpaquePointer) {
        library.nodeUnlink(node)
        append(node, to: parent)
    }

    /// Joins adjacent text nodes, so that `[[`, `==` or `%%` split at a bracket is whole again.
    func consolidateText() {
        library.consolidateTextNodes(root)
    }

    /// The plain text under `node`: text and code literals, a space for each line break.
    func plainText(of node: OpaquePointer) -> String {
        var text = ""
        forEachNode(under: node) { child, event, type, _ in
            guard event == GFMEvent.enter else { return }
            switch type {
            case GFMNodeType.text, GFMNodeType.code: text += literal(of: child) ?? ""
            case GFMNodeType.softBreak, GFMNodeType.lineBreak: text += " "
            default: break
            }
        }
        return text.trimmingASCIIWhitespace()
    }
}

@available(*, unavailable)
extension GFMDocument: Sendable {}
