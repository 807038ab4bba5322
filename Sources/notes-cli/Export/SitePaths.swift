import NotesCore

/// The addresses of the exported site: where each note's page goes, and how one page links to
/// another with a relative, percent-encoded href (so the site works from any folder, any host,
/// or straight from disk with `file://`).
enum SitePaths {
    /// The page listing every note.
    static let index = "index.html"
    /// The one stylesheet.
    static let stylesheet = "style.css"

    /// `a/b.md` → `a/b.html`, and so for every note extension (`a/b.Markdown` → `a/b.html`).
    static func page(for note: NotePath) -> String {
        page(forNoteAt: note.value)
    }

    /// The page of the note at `path` (a path `EntryKind` calls a note).
    static func page(forNoteAt path: String) -> String {
        EntryKind.droppingNoteExtension(path) + ".html"
    }

    /// The href from the page at `from` to the file at `to` (both site paths, `/`-separated).
    static func href(from: String, to: String) -> String {
        let fromFolder = from.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let target = to.split(separator: "/", omittingEmptySubsequences: false)
        var common = 0
        while common < fromFolder.count, common < target.count - 1, fromFolder[common] == target[common] { common += 1 }
        let ups = Array(repeating: "..", count: fromFolder.count - common)
        let downs = target[common...].map { percentEncode(String($0)) }
        return (ups + downs).joined(separator: "/")
    }

    /// The id of a folder's heading on the index page, and the fragment that finds it.
    static func folderAnchor(_ folder: String) -> String {
        "folder-" + percentEncode(folder, keepingSlash: true)
    }

    /// `text` with every byte but unreserved ASCII (RFC 3986) as `%XX`: `#`, `?`, `%` and
    /// spaces in a file name cannot break the link, and nothing needs HTML escaping.
    static func percentEncode(_ text: String, keepingSlash: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with `%XX` sequences decoded, or nil when they do not decode to UTF-8.
    static func percentDecode(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard iterator.count >= 2, let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            iterator = iterator.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
