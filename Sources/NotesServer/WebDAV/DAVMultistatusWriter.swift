import Foundation

/// Writes a `207 Multi-Status` body (RFC 4918 §13) response by response, in bounded memory.
///
/// The body grows in memory up to `spillBytes`; past that it goes on into a file with no name
/// (`UnlinkedFile`) and is sent from there, as an attachment is, so a listing of any length
/// costs the server the same memory. Each response is written as soon as it is known.
struct DAVMultistatusWriter: ~Copyable {
    /// How much of the body is kept in memory before it moves to a file.
    static let spillBytes = 256 * 1024

    private var buffer: [UInt8] = []
    private var file: UnlinkedFile?
    private let temporaryFolder: String

    init(temporaryFolder: String = NSTemporaryDirectory()) {
        self.temporaryFolder = temporaryFolder
        buffer.reserveCapacity(16 * 1024)
        append(#"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:">"#)
    }

    /// One `<D:response>` for `href`: each status with its properties' XML (already written).
    mutating func response(href: String, propstats: [(status: Int, properties: [String])]) throws {
        var out = "<D:response><D:href>" + DAVXMLText.escape(href) + "</D:href>"
        for propstat in propstats where !propstat.properties.isEmpty {
            out += "<D:propstat><D:prop>" + propstat.properties.joined() + "</D:prop><D:status>"
                + Self.statusLine(propstat.status) + "</D:status></D:propstat>"
        }
        out += "</D:response>"
        try write(out)
    }

    /// One `<D:response>` that says only a status for `href` (a member that could not be
    /// deleted, copied or moved).
    mutating func response(href: String, status: Int) throws {
        try write("<D:response><D:href>" + DAVXMLText.escape(href) + "</D:href><D:status>" + Self.statusLine(status) + "</D:status></D:response>")
    }

    /// The finished answer: 207 with the body in memory or in its file.
    consuming func finish() throws -> HTTPResponse {
        try write("</D:multistatus>\n")
        var response = HTTPResponse(status: 207, headers: ["Content-Type": DAVResponse.xmlContentType])
        if let file {
            try flush(into: file)
            let size = file.size
            response.file = ResponseFile(descriptor: try file.takeDescriptor(), offset: 0, length: Int64(size))
        } else {
            response.body = buffer
        }
        return response
    }

    /// `HTTP/1.1 200 OK` and the like, as `<D:status>` holds it.
    static func statusLine(_ status: Int) -> String {
        "HTTP/1.1 \(status) " + (reasons[status] ?? "Status")
    }

    private static let reasons: [Int: String] = [
        200: "OK", 201: "Created", 204: "No Content", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
        412: "Precondition Failed", 423: "Locked", 424: "Failed Dependency", 507: "Insufficient Storage",
    ]

    private mutating func write(_ text: String) throws {
        append(text)
        guard buffer.count >= Self.spillBytes else { return }
        if file == nil { file = try UnlinkedFile(in: temporaryFolder) }
        if let file { try flush(into: file) }
    }

    private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private mutating func flush(into file: UnlinkedFile) throws {
        let written = buffer.withUnsafeBytes { file.append($0) }
        guard written else { throw BlobStoreError(operation: "write a WebDAV listing to a temporary file", code: errno) }
        buffer.removeAll(keepingCapacity: true)
    }
}
