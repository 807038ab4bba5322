/// A `multipart/form-data` body as the upload form sends it: a few short text fields (the CSRF
/// token, the folder) and exactly one file.
///
/// Parsed with strict bounds, since the body comes from the network: at most `maxParts` parts,
/// part headers of at most `maxHeaderBytes`, text fields of at most `maxFieldBytes` of UTF-8,
/// one file part, each part named once. Anything else (a nested multipart, a second file, a
/// missing closing boundary) is refused as a whole rather than guessed at. The body is already
/// in memory, bounded by the server's request size; the file's bytes are sliced, not copied.
struct WebMultipart: Sendable {
    /// The text fields, by name.
    private(set) var fields: [String: String] = [:]
    /// The one file part, if the form sent one.
    private(set) var file: WebUpload?

    static let maxParts = 8
    static let maxHeaderBytes = 4096
    static let maxFieldBytes = 4096

    /// The boundary of a `multipart/form-data` content type; nil for any other type.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parts.first, type.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return value
        }
        return ""  // multipart without a usable boundary: refused by the parser
    }

    /// Parses `body` split by `boundary`.
    /// - Throws: a 400 `HTTPError` saying what was wrong, for any body outside the bounds.
    init(body: [UInt8], boundary: String) throws(HTTPError) {
        guard !boundary.isEmpty else { throw Self.refusal("it names no boundary") }
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard body.starts(with: delimiter) else { throw Self.refusal("it does not start with its boundary") }
        var position = delimiter.count
        var partCount = 0
        while true {
            // After a delimiter: `--` ends the body, CRLF starts a part.
            if body[position...].starts(with: [0x2D, 0x2D]) { break }
            guard body[position...].starts(with: [0x0D, 0x0A]) else { throw Self.refusal("a boundary is not followed by a line break") }
            position += 2
            partCount += 1
            guard partCount <= Self.maxParts else { throw Self.refusal("it has more than \(Self.maxParts) parts") }
            guard let headerEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position, within: Self.maxHeaderBytes) else {
                throw Self.refusal("a part's headers are missing or too long")
            }
            let disposition = try Self.disposition(of: body[position..<headerEnd])
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(separator, in: body, from: contentStart, within: body.count) else {
                throw Self.refusal("a part has no closing boundary")
            }
            let content = body[contentStart..<contentEnd]
            guard fields[disposition.name] == nil, file?.fieldName != disposition.name else {
                throw Self.refusal("the field \(disposition.name) is sent twice")
            }
            if let fileName = disposition.fileName {
                guard file == nil else { throw Self.refusal("it holds more than one file") }
                file = WebUpload(fieldName: disposition.name, fileName: fileName, bytes: content)
            } else {
                guard content.count <= Self.maxFieldBytes, let text = String(validating: content, as: UTF8.self) else {
                    throw Self.refusal("the field \(disposition.name) is too long or not text")
                }
                fields[disposition.name] = text
            }
            position = contentEnd + separator.count
        }
    }

    /// The `name` and `filename` of a part's `Content-Disposition: form-data` header.
    private static func disposition(of headers: ArraySlice<UInt8>) throws(HTTPError) -> (name: String, fileName: String?) {
        guard let text = String(validating: headers, as: UTF8.self) else { throw refusal("a part's headers are not text") }
        for line in text.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "content-disposition" else { continue }
            let parameters = WebMultipart.parameters(String(pair[1]))
            guard parameters.first?.key == "form-data", let name = parameters.first(where: { $0.key == "name" })?.value, !name.isEmpty else {
                throw refusal("a part is not a named form field")
            }
            return (name, parameters.first(where: { $0.key == "filename" })?.value)
        }
        throw refusal("a part has no Content-Disposition")
    }

    /// `form-data; name="a"; filename="b c.png"` as ordered key/value pairs (the type first, with
    /// an empty value). Quoted values may hold `;`; browsers escape `"` in them as `%22`.
    private static func parameters(_ header: String) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var rest = Substring(header)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            let key = rest.prefix { $0 != "=" && $0 != ";" }
            rest = rest.dropFirst(key.count)
            var value = ""
            if rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    value = String(rest.prefix { $0 != "\"" })
                    rest = rest.dropFirst(value.count + 1)
                } else {
                    value = String(rest.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
                    rest = rest.dropFirst(value.count)
                }
            }
            let name = key.trimmingCharacters(in: .whitespaces).lowercased()
            if !name.isEmpty { result.append((name, value)) }
        }
        return result
    }

    /// The index where `needle` starts in `haystack` at or after `start`, looking no further than
    /// `limit` bytes past `start`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int, within limit: Int) -> Int? {
        let end = min(haystack.count, start + limit + needle.count)
        guard start <= end, end - start >= needle.count, let first = needle.first else { return nil }
        var index = start
        while index + needle.count <= end {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func refusal(_ reason: String) -> HTTPError {
        .badRequest("The upload could not be read: \(reason).")
    }
}

/// The file of an upload form: the name the browser gave it and its bytes.
struct WebUpload: Sendable {
    let fieldName: String
    /// As the browser sent it (only the name; browsers send no folders). Validated by the page.
    let fileName: String
    let bytes: ArraySlice<UInt8>
}
