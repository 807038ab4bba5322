import NotesCore

/// Answers with stored content straight from its file: whole, or the one range asked for.
///
/// Every answer carries the safety headers of ATTACHMENTS-API.md: `X-Content-Type-Options:
/// nosniff` (added to every response by the HTTP layer), `Content-Security-Policy: sandbox`
/// (a page opened from it runs no script and has no origin), and the `Content-Disposition` the
/// caller chose. The bytes are never read into memory: libmicrohttpd sends the descriptor.
enum ContentResponse {
    static func make(_ file: ContentFile, hash: String, contentType: String, disposition: String, request: HTTPRequest) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Type": contentType,
            "ETag": "\"\(hash)\"",
            "Accept-Ranges": "bytes",
            "Content-Security-Policy": "sandbox",
            "Content-Disposition": disposition,
            "Cache-Control": "private, no-cache",
        ]
        if Preconditions.ifNoneMatch(request.headers["If-None-Match"], matches: "\"\(hash)\"") {
            file.close()
            return HTTPResponse(status: 304, headers: ["ETag": "\"\(hash)\""])
        }
        switch ByteRange(header: request.headers["Range"], size: file.size) {
        case .whole:
            var response = HTTPResponse(status: 200, headers: headers)
            response.file = ResponseFile(descriptor: file.descriptor, offset: 0, length: file.size)
            return response
        case .partial(let offset, let length):
            headers["Content-Range"] = "bytes \(offset)-\(offset + length - 1)/\(file.size)"
            var response = HTTPResponse(status: 206, headers: headers)
            response.file = ResponseFile(descriptor: file.descriptor, offset: offset, length: length)
            return response
        case .unsatisfiable:
            file.close()
            var error = HTTPResponse.error(HTTPError(416, code: "range_not_satisfiable",
                                                     message: "The range lies outside the content, which has \(file.size) bytes."))
            error.headers["Content-Range"] = "bytes */\(file.size)"
            return error
        }
    }

    /// `attachment` or `inline`, with the file name (RFC 6266: an ASCII fallback and the exact
    /// UTF-8 name percent-encoded).
    static func disposition(inline: Bool, fileName: String) -> String {
        let fallback = String(fileName.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F ? Character(scalar) : "_"
        })
        var encoded = ""
        for byte in fileName.utf8 {
            let unreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
            encoded += unreserved ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
        return "\(inline ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}
