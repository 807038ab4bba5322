import NotesCore

/// The space switcher in every signed-in page's header (the personal space and each space the
/// reader can read), and the banner above a shared space's pages naming the space and the
/// reader's role.
struct WebSpaceSwitcher: Sendable {
    /// The space the page shows; nil for the personal space.
    let current: WebSpace?
    let spaces: [SpaceResource]

    func render() -> HTML {
        let shared = spaces.filter { !$0.personal && $0.deletedAt == nil }
        let items = [item("Personal", detail: nil, href: WebPath("/"), isCurrent: current == nil)]
            + shared.map { item($0.name, detail: $0.owner + " · " + $0.role.rawValue, href: WebSpace.base(of: $0.id).appending(""),
                                isCurrent: current?.id == $0.id) }
        return """
            <nav class="space-switcher" aria-label="Spaces">
            <details><summary>Space: <strong>\(current.map(\.name) ?? "Personal")</strong></summary>
            <ul>\(items)</ul>
            </details>
            </nav>
            """
    }

    private func item(_ name: String, detail: String?, href: WebPath, isCurrent: Bool) -> HTML {
        """
        <li><a href="\(href)"\(isCurrent ? " aria-current=\"page\"" as HTML : .empty)>\(name)\
        \(detail.map { " <span class=\"muted small\">\($0)</span>" as HTML } ?? .empty)</a></li>
        """
    }

    /// The line above every page of a shared space: its name, its owner, the reader's role,
    /// and the way to its members.
    static func banner(_ space: WebSpace) -> HTML {
        let role: HTML = switch space.role {
        case .owner: "you own it"
        case .editor: "you are an <strong>editor</strong>"
        case .viewer: "you are a <strong>viewer</strong> (read only)"
        }
        return """
            <p class="space-banner" id="space-banner">Space <strong class="space-name">\(space.name)</strong> \
            <span class="muted">owned by \(space.owner)</span> · <span class="space-role" data-role="\(space.role.rawValue)">\(role)</span> · \
            <a href="\(space.membersPage)">Members</a></p>
            """
    }
}
