extension GFMDocument {
    /// The plain text of the first heading, or nil when there is none or it is empty.
    func firstHeadingText() -> String? {
        var title: String?
        forEachNode { node, event, type, _ in
            guard title == nil, event == GFMEvent.enter, type == GFMNodeType.heading else { return }
            title = plainText(of: node)
        }
        return title?.isEmpty == false ? title : nil
    }

    /// Gives every heading a GitHub-style `id`, as `MarkdownDocument.addHeadingIDs` does: the
    /// heading is rendered alone by cmark-gfm (safe mode included) and replaced by a custom
    /// block holding that HTML with the id added to its opening tag.
    func addHeadingIDs() {
        var slugger = HeadingSlugger()
        for heading in nodes(ofType: GFMNodeType.heading) {
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
