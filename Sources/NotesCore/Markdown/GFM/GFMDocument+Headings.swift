extension GFMDocument {
    /// Gives every heading a GitHub-style `id`, as `MarkdownDocument.addHeadingIDs` does: the
    /// heading is rendered alone by cmark-gfm (safe mode included) and replaced by a custom
    /// block holding that HTML with the id added to its opening tag.
    /// `headings` are the tree's headings in document order.
    func addHeadingIDs(_ headings: [OpaquePointer]) {
        var slugger = HeadingSlugger()
        for heading in headings {
            let id = slugger.slug(for: plainText(of: heading))
            let html = html(of: heading)
            let level = library.nodeGetHeadingLevel(heading)
            let open = "<h\(level)>"
            guard html.hasPrefix(open) else { continue }
            let block = newCustom(block: true, enter: "<h\(level) id=\"\(HTMLEscaping.escape(id))\">" + html.dropFirst(open.count), exit: "")
            insert(block, before: heading)
            remove(heading)
        }
    }
}
