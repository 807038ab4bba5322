import Foundation
import NotesCore

/// The tags of an exported site: a page per tag listing the notes that carry it or a tag nested
/// under it (`#project` lists the notes tagged `#project/alpha` too, as Obsidian's tag pane
/// does), and the list of every tag on the index page. `#tag` links in pages lead here.
struct TagPages {
    /// One tag's page.
    struct Tag {
        /// The tag as first written (`#Idea` and `#idea` share a page).
        var name: String
        var page: String
        /// The notes carrying exactly this tag, in the order they were added (path order).
        var notes: [SiteIndex.Entry]
    }

    /// Page path → tag.
    private var tags: [String: Tag] = [:]

    /// Records that the note `entry` carries `names` (front matter and inline tags).
    mutating func add(_ names: [String], of entry: SiteIndex.Entry) {
        for name in names {
            let page = SitePaths.tagPage(for: name)
            tags[page, default: Tag(name: name, page: page, notes: [])].notes.append(entry)
        }
    }

    var isEmpty: Bool { tags.isEmpty }

    /// Every tag, sorted by page.
    var sorted: [Tag] { tags.values.sorted { $0.page < $1.page } }

    /// The tag pages of the site.
    func pages() -> [SiteFile] {
        sorted.map { tag in
            let nested = String(tag.page.dropLast(".html".count)) + "/"
            var seen: Set<NotePath> = []
            let notes = (tags.values.filter { $0.page == tag.page || $0.page.hasPrefix(nested) }.flatMap(\.notes))
                .filter { seen.insert($0.path).inserted }
                .sorted { $0.path < $1.path }
            var body = "<h1 class=\"tag-title\">#\(HTMLEscaping.escape(tag.name))</h1>\n<ul class=\"tag-notes\">\n"
            for note in notes {
                let href = SitePaths.href(from: tag.page, to: SitePaths.page(for: note.path))
                body += "<li><a href=\"\(href)\">\(HTMLEscaping.escape(note.title))</a>"
                    + " <span class=\"file\">\(HTMLEscaping.escape(note.path.value))</span></li>\n"
            }
            body += "</ul>\n"
            let page = HTMLPage(title: "#" + tag.name, bodyHTML: body,
                                stylesheet: .linked(href: SitePaths.href(from: tag.page, to: SitePaths.stylesheet)),
                                indexHref: SitePaths.href(from: tag.page, to: SitePaths.index))
            return SiteFile(path: tag.page, bytes: Data(page.render().utf8))
        }
    }

    /// The index page's list of tags, each linked to its page with the number of notes carrying
    /// it; "" when no note has a tag.
    func indexSection() -> String {
        guard !isEmpty else { return "" }
        var html = "<h2 id=\"\(SitePaths.tagsAnchor)\">Tags</h2>\n<ul class=\"tag-list\">\n"
        for tag in sorted {
            let href = SitePaths.href(from: SitePaths.index, to: tag.page)
            html += "<li><a class=\"tag\" href=\"\(href)\">#\(HTMLEscaping.escape(tag.name))</a> (\(tag.notes.count))</li>\n"
        }
        return html + "</ul>\n"
    }
}
