#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GFMDocument {
    /// Applies `treat` to each of `links` (the tree's links and images, in document order):
    /// rewrites destinations, and replaces the ones to unlink by their content (a link's text,
    /// an image's alt text), as `MarkdownDocument` does for libcmark's tree. Then, with
    /// `refusingUnsafe`, turns every link whose destination safe mode refuses (`javascript:`,
    /// `vbscript:`, `file:`, non-image `data:`) into its bare content: cmark-gfm would only
    /// empty the `href`, leaving a link that looks live.
    func treatLinks(_ links: [OpaquePointer], _ treat: ((LinkDestination) -> LinkTreatment)?, refusingUnsafe: Bool) {
        var unlinked: [OpaquePointer] = []
        for node in links {
            let isImage = type(of: node) == GFMNodeType.image
            if let treat {
                switch treat(LinkDestination(url: url(of: node), isImage: isImage)) {
                case .keep: break
                case .rewrite(let replacement): setURL(node, replacement)
                case .plainText:
                    unlinked.append(node)
                    continue
                }
            }
            // Only a destination with a scheme can be refused: most have none, and need no copy.
            guard refusingUnsafe, !isImage, let raw = library.nodeGetURL(node), strchr(raw, Int32(UInt8(ascii: ":"))) != nil,
                  LinkSafety.isRefused(String(cString: raw)) else { continue }
            unlinked.append(node)
        }
        // Innermost first: an image inside a link is unlinked before (or without) the link.
        unlinked.reversed().forEach(unwrap)
    }
}
