/// Relative link destinations between the notes of one folder.
public enum RelativeLink {
    /// `link`, written in the file at `ownNote`, as it must be written in the file at `note` to
    /// lead to the same place: what an embedded note's links become on the page of the note
    /// that embeds it (the server's pages, `notes render`, export's pages). A destination with a scheme, `//host` or `/path` is kept; so is one that
    /// climbs above the folder's root or does not decode.
    public static func rebase(_ link: String, from ownNote: String, to note: String) -> String {
        guard ownNote != note, !link.isEmpty, !link.hasPrefix("/"), !hasScheme(link) else { return link }
        let pathEnd = link.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? link.endIndex
        if pathEnd == link.startIndex { return WikiLinkResolver.relativeHref(from: note, to: ownNote) + link }
        guard let path = percentDecoded(link[..<pathEnd]) else { return link }
        var segments = ownNote.split(separator: "/").dropLast().map(String.init)
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..": if segments.popLast() == nil { return link }
            default: segments.append(String(segment))
            }
        }
        return WikiLinkResolver.relativeHref(from: note, to: segments.joined(separator: "/")) + link[pathEnd...]
    }

    /// Whether `destination` begins with a URI scheme (`https:`, `mailto:`).
    public static func hasScheme(_ destination: String) -> Bool {
        let bytes = destination.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return false }
        let isLetter: (UInt8) -> Bool = { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        let isSchemeByte: (UInt8) -> Bool = { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
        return isLetter(bytes[bytes.startIndex]) && bytes[..<colon].allSatisfy(isSchemeByte)
    }

    /// `text` with its `%XX` escapes decoded, or nil when one is malformed or the bytes are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            rest = rest.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
