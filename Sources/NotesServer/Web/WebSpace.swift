import NotesCore

/// The shared space a page is in: `/s/<space id>/…` holds the same pages as the personal space's
/// `/…`, on the space's notes (docs/architecture.md §3.5). Addressed by id, never by name: a
/// space's id never changes (a rename keeps every link) and names repeat across owners.
struct WebSpace: Sendable {
    let id: Int64
    let name: String
    /// The owner's username.
    let owner: String
    /// The reader's role.
    let role: SpaceRole

    init(_ resource: SpaceResource) {
        id = resource.id
        name = resource.name
        owner = resource.owner
        role = resource.role
    }

    /// Whether the reader may change the space's notes (owner and editors).
    var writes: Bool { role.writes }

    /// `/s/<id>`: the prefix of every page of the space.
    var base: WebPath { Self.base(of: id) }

    /// The space's home page.
    var home: WebPath { base.appending("") }

    /// The space's members page.
    var membersPage: WebPath { base.appending("members") }

    static func base(of id: Int64) -> WebPath { WebPath("/s").appending(String(id)) }

    /// The address of the page `path` (`/new`, `/?done=uploaded`) in `space`: the same in the
    /// personal space (nil), under the space's prefix in a shared one.
    static func address(_ path: String, in space: WebSpace?) -> String {
        space.map { WebSpaceLinks(base: $0.base).rewrite(location: path) } ?? path
    }

    /// The pages a space mirrors: every page on notes, files, search, tags and the trash, by the
    /// first segment of their path (the home page is the empty one). The account's own pages
    /// (account, devices, sign-out) and the assets stay where they are.
    static let mirroredSegments: Set<Substring> = ["", "notes", "new", "search", "tags", "trash", "preview", "files", "upload"]

    /// Whether `path` (`/notes/X`) is one of the pages a space mirrors.
    static func mirrors(path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        return mirroredSegments.contains(path.dropFirst().prefix { $0 != "/" })
    }

    /// `/s/42/notes/X` split into the space's id and the page inside it (`/notes/X`); nil for any
    /// other path, a space's own pages (`/s/42/members`) included.
    static func split(_ path: String) -> (space: Int64, page: String)? {
        guard path.hasPrefix("/s/") else { return nil }
        let rest = path.dropFirst(3)
        let digits = rest.prefix { $0 != "/" }
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(\.isASCII), let id = Int64(digits), id > 0 else { return nil }
        let page = String(rest.dropFirst(digits.count))
        let inside = page.isEmpty ? "/" : page
        return mirrors(path: inside) ? (id, inside) : nil
    }
}

/// Leads a page's own addresses into the space it shows: each attribute value that is an address
/// of a mirrored page (`href="/notes/X"`, `action="/new"`, `src="/files/a.png"`,
/// `data-preview-url="/preview"`) gets the space's prefix, so a page written for the personal
/// space links, posts and previews inside the space. Only attribute values are touched: text
/// reaches a page escaped (`"` as `&quot;`), so `="/` only ever starts an attribute's value.
struct WebSpaceLinks: Sendable {
    let base: WebPath

    func rewrite(_ html: String) -> String {
        let bytes = Array(html.utf8)
        let marker = Array("=\"/".utf8)
        let prefix = Array(base.value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 256)
        var index = 0
        while index < bytes.count {
            if bytes[index] == marker[0], index + 2 < bytes.count, bytes[index + 1] == marker[1], bytes[index + 2] == marker[2],
               Self.isMirrored(bytes, from: index + 3) {
                out.append(contentsOf: marker.prefix(2))
                out.append(contentsOf: prefix)
                index += 2
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `path` (a redirect's `Location`) inside the space when it is a mirrored page.
    func rewrite(location path: String) -> String {
        WebSpace.mirrors(path: path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path)
            ? base.value + path : path
    }

    /// Whether the address after `="/`, starting at `start`, leads to a mirrored page; `//host`
    /// is another site and never one.
    private static func isMirrored(_ bytes: [UInt8], from start: Int) -> Bool {
        var end = start
        while end < bytes.count, !Self.ends(bytes[end]) { end += 1 }
        if end == start { return end < bytes.count && bytes[end] != UInt8(ascii: "/") }
        let segment = String(decoding: bytes[start..<end], as: UTF8.self)
        return WebSpace.mirroredSegments.contains(Substring(segment))
    }

    private static func ends(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"")
    }
}
