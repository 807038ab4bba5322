import Foundation

/// Resolves wiki links against the files of one notes folder, as Obsidian, Foam and Logseq do:
/// by file name, `.md` (else `.markdown`) implied, a folder prefix (`sub/Note`) narrowing the
/// choice, letter case ignored. When several files match, the one with the shortest path wins
/// (then one in the linking note's folder, then the first by path), so `[[Note]]` finds
/// `Note.md` at the top over `archive/Note.md`.
///
/// The answer is a destination as a Markdown link would write it, relative to the linking note
/// (`../sub/Note.md#heading`, percent-encoded), so whatever handles Markdown links next (export
/// turns note links into page links and copies linked files) treats both spellings alike.
public struct WikiLinkResolver: Sendable {
    /// Lower-cased file name → the paths with that name.
    private let byName: [String: [String]]

    /// A resolver for a folder holding `files`: every file's relative, `/`-separated path,
    /// notes and other files alike.
    public init<Paths: Sequence>(files: Paths) where Paths.Element == String {
        var byName: [String: [String]] = [:]
        for path in files {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            byName[Self.key(name), default: []].append(path)
        }
        self.byName = byName
    }

    /// The destination of `link` written in the file at `note` (a path of this folder), or nil
    /// when it names no file here.
    public func destination(for link: WikiLink, from note: String) -> String? {
        let fragment = link.heading.flatMap { $0.hasPrefix("^") ? nil : "#" + HeadingSlugger.slug($0) } ?? ""
        guard !link.target.isEmpty else { return fragment.isEmpty ? nil : fragment }
        guard let file = resolve(link.target, from: note) else { return nil }
        // A fragment names a heading of a note; after an image or another file
        // (`![[chart.png#interface]]`) it names nothing the file holds, and a page that copies
        // or serves files by their path must not look for one named with it.
        guard EntryKind(path: file) == .note else { return Self.relativeHref(from: note, to: file) }
        return Self.relativeHref(from: note, to: file) + fragment
    }

    /// The path of the file `target` names, or nil.
    public func resolve(_ target: String, from note: String) -> String? {
        let rooted = target.hasPrefix("/")
        let written = rooted ? String(target.dropFirst()) : target
        let segments = written.split(separator: "/", omittingEmptySubsequences: false)
        guard !written.isEmpty, segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        let lowered = Self.key(written)
        // `Note` means `Note.md` (else `Note.markdown`); a name that already ends in a note
        // extension or names another file is tried as written.
        let spellings = EntryKind(path: lowered) == .note ? [lowered] : Self.impliedExtensions.map { lowered + $0 } + [lowered]
        let noteFolder = note.lastIndex(of: "/").map { String(note[..<$0]) } ?? ""
        for spelling in spellings {
            let name = spelling.split(separator: "/").last.map(String.init) ?? spelling
            let matches = (byName[name] ?? []).filter { path in
                let key = Self.key(path)
                return key == spelling || (!rooted && key.hasSuffix("/" + spelling))
            }
            let best = matches.min { a, b in
                let depthA = a.split(separator: "/").count, depthB = b.split(separator: "/").count
                if depthA != depthB { return depthA < depthB }
                let nearA = Self.folder(of: a) == noteFolder, nearB = Self.folder(of: b) == noteFolder
                if nearA != nearB { return nearA }
                return a < b
            }
            if let best { return best }
        }
        return nil
    }

    /// What a link without a note extension may mean, in order: `.md` first, as those tools do.
    private static let impliedExtensions = EntryKind.noteExtensions.sorted { ($0.count, $0) < ($1.count, $1) }.map { "." + $0 }

    /// File extensions an embed shows as an image.
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp"]

    /// Whether a destination (a relative path, maybe with a fragment) names an image file.
    public static func isImage(_ destination: String) -> Bool {
        let path = destination.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    private static func key(_ text: String) -> String {
        // `NotePath.nfc` skips Foundation's normalisation for ASCII, which is NFC already: it
        // was most of building a resolver for 10,000 notes.
        NotePath.nfc(text).lowercased()
    }

    private static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    /// The relative, percent-encoded href from the file at `from` to the file at `to`.
    static func relativeHref(from: String, to: String) -> String {
        let fromFolder = from.split(separator: "/").dropLast()
        let target = to.split(separator: "/")
        var common = 0
        while common < fromFolder.count, common < target.count - 1, fromFolder[fromFolder.startIndex + common] == target[common] {
            common += 1
        }
        let ups = Array(repeating: "..", count: fromFolder.count - common)
        return (ups + target[common...].map { percentEncode(String($0)) }).joined(separator: "/")
    }

    /// Every byte but unreserved ASCII as `%XX`, so a space, `#` or `?` in a name stays a name.
    static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
