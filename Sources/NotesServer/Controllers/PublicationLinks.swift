import Foundation
import NotesCore

/// Where the links and images of a published note may lead, so the page offers no way to walk
/// from it to anything else on the server.
///
/// - A link with a scheme (`https:`, `mailto:`) is kept: it leads off the server, where the
///   author meant (safe mode still refuses `javascript:` and the like). A link within the page
///   (`#part`) is kept. Every other link (relative like `other.md` or `../x`, rooted like
///   `/v1/notes`, or `//host`) would resolve against the server instead of the author's folder,
///   so it renders as its text.
/// - An image at a relative path inside the author's folder is addressed through the
///   publication (`attachmentAddress`), relative to the note's own folder so that the address
///   tells no more than the note's text did: `img/chart.png` from `work/acme/plan.md` becomes
///   `/p/<token>/a/img/chart.png`, and `../shared/logo.png` becomes
///   `/p/<token>/a/shared/logo.png?up=1` (dot segments would not survive a browser). One that
///   climbs out of the folder, a rooted one and one on another site render as their alt text:
///   a reader's browser never contacts a third party from a published page. Inline `data:`
///   images (the plain types safe mode lets through) are kept.
/// - `[[wiki links]]` and `![[embeds]]` resolve against the owner's files (`NoteRendering`) to
///   relative destinations, and are then treated as above: an embedded image goes through the
///   publication, a link to a note renders as its text, exactly as a link to nothing does, so
///   the page tells nothing about which notes exist.
/// - Except a link, wiki or Markdown, to a note the owner published too: it leads to that note's
///   page under the reader's own link, `/p/<token>/n/<link id>` (`PublicationStore+Links.swift`),
///   its `#heading` kept. That page treats its links the same way, so a reader can walk from
///   one published note to another, and never to one that is not published.
struct PublicationLinks {
    /// The note's path in its folder (`journal/day.md`): relative addresses start from its folder.
    let notePath: String
    /// The reader's publication: its token, under whose address the page and every published
    /// note it links to are reached.
    let token: String
    /// The link id of the note shown when it is reached from `token`'s page rather than its own;
    /// nil on `token`'s own page. Its images are addressed under its page.
    var linkID: String?
    /// The owner's published notes by path, with their link ids (`PublicationStore.publishedNotes`).
    var publishedNotes: [String: String] = [:]

    func treat(_ destination: LinkDestination) -> LinkTreatment {
        let url = destination.url
        guard destination.isImage else {
            if url.hasPrefix("#") || Self.hasScheme(url) { return .keep }
            guard !url.hasPrefix("/"), let path = Self.resolve(url, from: notePath),
                  let target = publishedNotes[path.joined(separator: "/")] else { return .plainText }
            return .rewrite(Self.linkedPage(target, token: token) + Self.fragment(of: url))
        }
        if url.utf8.prefix(5).map({ $0 | 0x20 }) == Array("data:".utf8) { return .keep }
        guard !Self.hasScheme(url), !url.hasPrefix("/"), let path = Self.resolve(url, from: notePath) else { return .plainText }
        return .rewrite(attachmentAddress(of: path))
    }

    /// The folder-relative paths of the images `content` (this note's text) embeds through the
    /// publication: exactly those `treat` addresses, so the attachment route serves nothing else.
    /// `rendering` and `ownerPaths` as the page renders with.
    func embeddedPaths(of content: String, rendering: NoteRendering, ownerPaths: () throws -> [String]) throws -> Set<[String]> {
        var paths = Set<[String]>()
        _ = try rendering.render(content, notePath: notePath, paths: ownerPaths, links: .publicPage { destination in
            let treatment = treat(destination)
            if case .rewrite = treatment, let path = Self.resolve(destination.url, from: notePath) { paths.insert(path) }
            return treatment
        })
        return paths
    }

    /// The address of the file at the folder-relative `path` through this publication:
    /// `/p/<token>/a/<path from the note's folder>`, plus `?up=N` when it lies N folders above
    /// the note's; each segment percent-encoded.
    func attachmentAddress(of path: [String]) -> String {
        let folder = notePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        var shared = 0
        while shared < min(folder.count, path.count - 1) && folder[shared] == path[shared] { shared += 1 }
        let up = folder.count - shared
        let relative = path[shared...].map { $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? "" }
        let page = linkID.map { Self.linkedPage($0, token: token) } ?? PublicationToken.path(for: token)
        return page + "/a/" + relative.joined(separator: "/") + (up > 0 ? "?up=\(up)" : "")
    }

    /// The page of the published note with `linkID` reached from the publication `token`.
    static func linkedPage(_ linkID: String, token: String) -> String {
        PublicationToken.path(for: token) + "/n/" + linkID
    }

    /// The `#fragment` of `url` (a heading's id), or "" when it has none or one that is not
    /// plainly a heading id (letters, digits, `-`, `_`, `.`, percent-encoded bytes).
    private static func fragment(of url: String) -> String {
        guard let hash = url.firstIndex(of: "#") else { return "" }
        let fragment = url[url.index(after: hash)...]
        let plain = fragment.unicodeScalars.allSatisfy { segmentCharacters.contains($0) || $0 == "%" }
        return plain && !fragment.isEmpty ? "#" + fragment : ""
    }

    /// The folder-relative path an attachment address names (the `*path` after `/a/`, already
    /// percent-decoded, and its `up` parameter), the inverse of `attachmentAddress`; nil when it
    /// climbs above the folder's root or is not a plain path.
    static func folderPath(ofAttachment relative: String, up: Int, from notePath: String) -> [String]? {
        let folder = notePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        guard up >= 0, up <= folder.count else { return nil }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !segments.isEmpty, segments.allSatisfy(isPlainSegment) else { return nil }
        return Array(folder.dropLast(up)) + segments
    }

    /// A path segment that names a file or folder by itself: not empty, `.` or `..`, without a
    /// control character or `\`.
    private static func isPlainSegment(_ segment: String) -> Bool {
        !segment.isEmpty && segment != "." && segment != ".."
            && !segment.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }
    }

    /// Whether `url` starts with an RFC 3986 scheme (`ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") ":"`).
    static func hasScheme(_ url: String) -> Bool {
        guard let first = url.utf8.first, Self.isLetter(first) else { return false }
        for byte in url.utf8.dropFirst() {
            if byte == UInt8(ascii: ":") { return true }
            guard isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".") else { return false }
        }
        return false
    }

    /// The folder-relative segments `relative` names from the folder of `notePath`, or nil when
    /// it climbs above the folder's root, names nothing, or holds a control character or `\`.
    static func resolve(_ relative: String, from notePath: String) -> [String]? {
        let withoutSuffix = relative.prefix { $0 != "?" && $0 != "#" }
        guard let decoded = String(withoutSuffix).removingPercentEncoding else { return nil }
        var segments = notePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case "", ".": continue
            case "..":
                guard !segments.isEmpty else { return nil }
                segments.removeLast()
            default:
                guard isPlainSegment(String(segment)) else { return nil }
                segments.append(String(segment))
            }
        }
        guard let last = segments.last, !last.isEmpty, !decoded.hasSuffix("/") else { return nil }
        return segments
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// RFC 3986 unreserved characters: everything else in a segment is percent-encoded.
    private static let segmentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
