import NotesCore

/// The addresses of the exported site: where each note's page goes, and how one page links to
/// another with a relative, percent-encoded href (so the site works from any folder, any host,
/// or straight from disk with `file://`).
enum SitePaths {
    /// The page listing every note.
    static let index = "index.html"
    /// The one stylesheet.
    static let stylesheet = "style.css"
    /// The folder of the typesetting files (KaTeX, highlight.js), when a page needs them.
    static let assets = "assets/"

    /// `a/b.md` → `a/b.html`, and so for every note extension (`a/b.Markdown` → `a/b.html`).
    static func page(for note: NotePath) -> String {
        page(forNoteAt: note.value)
    }

    /// The page of the note at `path` (a path `EntryKind` calls a note).
    static func page(forNoteAt path: String) -> String {
        EntryKind.droppingNoteExtension(path) + ".html"
    }

    /// The href from the page at `from` to the file at `to` (both site paths, `/`-separated).
    ///
    /// Worked on the UTF-8 bytes of ASCII paths (export makes a few for every page); other
    /// paths keep the String rules (`/` followed by a combining mark is no separator there,
    /// canonically equal segments match), in `unicodeHref`.
    static func href(from: String, to: String) -> String {
        guard isASCII(from), isASCII(to) else { return unicodeHref(from: from, to: to) }
        let slash = UInt8(ascii: "/")
        var out: [UInt8] = []
        var from = from, to = to
        from.withUTF8 { from in
            to.withUTF8 { to in
                // Skip the folders both paths share, whole segments at a time.
                var fromStart = 0, toStart = 0
                while let fromEnd = from[fromStart...].firstIndex(of: slash), let toEnd = to[toStart...].firstIndex(of: slash),
                      from[fromStart..<fromEnd].elementsEqual(to[toStart..<toEnd]) {
                    fromStart = fromEnd + 1
                    toStart = toEnd + 1
                }
                let ups = from[fromStart...].count(where: { $0 == slash })
                out.reserveCapacity(ups * 3 + to.count - toStart + 16)
                for _ in 0..<ups { out += [UInt8(ascii: "."), UInt8(ascii: "."), slash] }
                appendPercentEncoded(UnsafeBufferPointer(rebasing: to[toStart...]), keepingSlash: true, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `href(from:to:)` for any paths, segment by segment as Strings.
    static func unicodeHref(from: String, to: String) -> String {
        let fromFolder = from.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let target = to.split(separator: "/", omittingEmptySubsequences: false)
        var common = 0
        while common < fromFolder.count, common < target.count - 1, fromFolder[common] == target[common] { common += 1 }
        let ups = Array(repeating: "..", count: fromFolder.count - common)
        let downs = target[common...].map { percentEncode(String($0)) }
        return (ups + downs).joined(separator: "/")
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
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
        var text = text
        text.withUTF8 { appendPercentEncoded($0, keepingSlash: keepingSlash, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendPercentEncoded(_ bytes: UnsafeBufferPointer<UInt8>, keepingSlash: Bool, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789ABCDEF"
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            default:
                hex.withUTF8Buffer { hex in
                    out.append(UInt8(ascii: "%"))
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0x0F)])
                }
            }
        }
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
