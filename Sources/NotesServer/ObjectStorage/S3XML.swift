import Foundation

/// The few values this server reads from an S3 answer's XML: the text of named elements, in
/// order, with the five predefined entities decoded. S3's answers are flat, generated documents
/// (`ListBucketResult`, `InitiateMultipartUploadResult`, `CopyPartResult`, `Error`), so a search
/// for `<Name>...</Name>` is exact for them; nothing here is a general XML parser.
enum S3XML {
    /// The text of every `<name>` element, in document order.
    static func values(of name: String, in document: String) -> [String] {
        var values: [String] = []
        var rest = Substring(document)
        let open = "<\(name)>", close = "</\(name)>"
        while let start = rest.range(of: open) {
            guard let end = rest[start.upperBound...].range(of: close) else { break }
            values.append(decode(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return values
    }

    /// The inner text of each `<name>` element, undecoded (a block to search further).
    static func blocks(of name: String, in document: String) -> [String] {
        var blocks: [String] = []
        var rest = Substring(document)
        let open = "<\(name)>", close = "</\(name)>"
        while let start = rest.range(of: open) {
            guard let end = rest[start.upperBound...].range(of: close) else { break }
            blocks.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    /// The first `<name>` element's text, or nil.
    static func value(of name: String, in document: String) -> String? {
        values(of: name, in: document).first
    }

    /// `text` escaped for an element's content.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
