import Foundation
import NotesCore

/// Turns links between notes into links between exported pages.
///
/// A relative destination (resolved against the linking note's folder, or against the notes
/// root when it starts with `/`) that names a note (any note extension, as `EntryKind` says),
/// `other.md#part`, `../b/c.markdown?x`, becomes
/// the relative href of that note's page with the query and fragment kept. One that names a
/// folder holding notes (`sub/`, `..`) becomes that folder's heading on the index page.
/// A fragment of a link to a note is made the heading id export gives (`#Some%20Heading` →
/// `#some-heading`). One that names another file of the folder is kept (the site mirrors the
/// folder) and that file is reported, so export copies it. External links (any scheme,
/// `//host`) and same-page `#fragment`s are untouched. A relative destination that names no
/// note, file or folder, or climbs out of the notes folder, is reported as missing and left as
/// written, so the broken link stays visible.
struct LinkRewriter: Sendable {
    /// A link that should point at a note but does not.
    struct MissingLink: Sendable, Hashable {
        var note: NotePath
        var destination: String
        var reason: String
    }

    /// What to do with one destination.
    enum Outcome: Equatable {
        case keep
        case rewrite(String)
        /// A link to the folder's file at this path: kept as written, the file copied.
        case file(String)
        case missing(reason: String)
    }

    private let notes: Set<String>
    /// The page of each note.
    private let pages: Set<String>
    private let folders: Set<String>
    private let files: Set<String>

    /// A rewriter for a site made of `notes`, in a folder that also holds `files` (other than notes).
    init<Paths: Sequence>(notes paths: Paths, files: Set<String> = []) where Paths.Element == NotePath {
        self.files = files
        var notes: Set<String> = []
        var folders: Set<String> = [""]
        for path in paths {
            notes.insert(path.value)
            var folder = path.folder
            while !folder.isEmpty, folders.insert(folder).inserted {
                folder = folder.lastIndex(of: "/").map { String(folder[..<$0]) } ?? ""
            }
        }
        self.notes = notes
        self.pages = Set(notes.map(SitePaths.page(forNoteAt:)))
        self.folders = folders
    }

    /// Where `destination`, written in the note at `note`, should point in the site.
    func outcome(for destination: String, in note: NotePath) -> Outcome {
        if destination.isEmpty || destination.hasPrefix("#") || destination.hasPrefix("//") || Self.hasScheme(destination) {
            return .keep
        }
        // The path ends at the first `?` or `#`; what follows belongs to the target page.
        let pathEnd = destination.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? destination.endIndex
        let rawPath = String(destination[..<pathEnd])
        let suffix = String(destination[pathEnd...])
        guard !rawPath.isEmpty, let decoded = SitePaths.percentDecode(rawPath) else { return .keep }
        let isNoteLink = EntryKind(path: decoded) == .note
        guard let resolved = Self.resolve(decoded, from: note.folder) else {
            return .missing(reason: "it points outside the notes folder")
        }
        let target = NotePath.nfc(resolved)
        let page = SitePaths.page(for: note)
        if isNoteLink {
            guard notes.contains(target) else { return .missing(reason: "there is no note \(target)") }
            return .rewrite(SitePaths.href(from: page, to: SitePaths.page(forNoteAt: target)) + Self.headingSuffix(suffix))
        }
        if folders.contains(target) {
            let index = SitePaths.href(from: page, to: SitePaths.index)
            return .rewrite(target.isEmpty ? index : index + "#" + SitePaths.folderAnchor(target))
        }
        if files.contains(target) { return .file(target) }
        // A link written to the site itself (the index, the stylesheet, another note's page).
        if target == SitePaths.index || target == SitePaths.stylesheet || pages.contains(target) {
            return .keep
        }
        return .missing(reason: "there is no file \(target)")
    }

    /// `?query#fragment` with the fragment made a heading id (`#Some%20Heading` → `#some-heading`).
    /// A slug is its own slug, so a fragment already written as an id is kept.
    private static func headingSuffix(_ suffix: String) -> String {
        guard let hash = suffix.firstIndex(of: "#") else { return suffix }
        let fragment = String(suffix[suffix.index(after: hash)...])
        guard !fragment.isEmpty else { return suffix }
        let slug = HeadingSlugger.slug(SitePaths.percentDecode(fragment) ?? fragment)
        return String(suffix[...hash]) + SitePaths.percentEncode(slug)
    }

    /// Whether `destination` starts with a URI scheme such as `https:` or `mailto:`.
    static func hasScheme(_ destination: String) -> Bool {
        RelativeLink.hasScheme(destination)
    }

    /// `path` resolved against `folder` (`.` and `..` applied, empty segments dropped), or nil
    /// when it climbs above the notes root.
    private static func resolve(_ path: String, from folder: String) -> String? {
        var segments: [Substring] = path.hasPrefix("/") || folder.isEmpty ? [] : folder.split(separator: "/")
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..":
                guard segments.popLast() != nil else { return nil }
            default: segments.append(segment)
            }
        }
        return segments.joined(separator: "/")
    }
}
