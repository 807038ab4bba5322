#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GFMDocument {
    /// Shows each ```` ```mermaid ```` block as a code block labelled as a Mermaid diagram's
    /// source (class `language-mermaid`, for a page script that can draw it). Other fenced code
    /// keeps cmark-gfm's `language-NAME` class, which highlight.js reads.
    /// `blocks` are the tree's code blocks.
    func labelMermaidBlocks(_ blocks: [OpaquePointer]) {
        for block in blocks {
            // Most code is not Mermaid: the info string is looked at in C before any Swift copy.
            guard let info = library.nodeGetFenceInfo(block), strncasecmp(info, "mermaid", 7) == 0 else { continue }
            let language = fenceInfo(of: block).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map { $0.lowercased() }
            guard language == "mermaid" else { continue }
            let source = HTMLEscaping.escape(literal(of: block) ?? "")
            let html = "<figure class=\"mermaid\">\n<figcaption>Mermaid diagram (source)</figcaption>\n"
                + "<pre><code class=\"language-mermaid\">\(source)</code></pre>\n</figure>\n"
            insert(newCustom(block: true, enter: html, exit: ""), before: block)
            remove(block)
        }
    }
}
