/// Answers WebDAV sends besides multistatus: errors as `<D:error>` bodies (RFC 4918 §16) with a
/// sentence a person can act on, and the small fixed answers.
enum DAVResponse {
    /// The media type of every XML body.
    static let xmlContentType = "application/xml; charset=utf-8"
    /// Notes' own XML namespace, for the sentence in an error body.
    static let notesNamespace = "https://notes.invalid/ns"

    /// The preconditions of RFC 4918 §16 an error's `code` may name, written as their element.
    static let conditions: Set<String> = [
        "propfind-finite-depth", "lock-token-submitted", "lock-token-matches-request-uri", "no-conflicting-lock",
        "cannot-modify-protected-property", "no-external-entities", "preserved-live-properties",
    ]

    /// `error` as a WebDAV answer: its status and headers, and a body naming the condition (when
    /// it is one of RFC 4918's) and saying the message.
    static func error(_ error: HTTPError) -> HTTPResponse {
        var body = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
        body += #"<D:error xmlns:D="DAV:" xmlns:N=""# + notesNamespace + #"">"#
        if conditions.contains(error.code) {
            body += "<D:" + error.code + "/>"
        } else {
            body += "<N:code>" + DAVXMLText.escape(error.code) + "</N:code>"
        }
        body += "<N:message>" + DAVXMLText.escape(error.message) + "</N:message></D:error>\n"
        var response = HTTPResponse(status: error.status, headers: ["Content-Type": xmlContentType], body: Array(body.utf8))
        for (name, value) in error.headers {
            response.headers[name] = value
        }
        return response
    }

    /// An answer without a body: 201, 204.
    static func empty(_ status: Int, headers: HTTPHeaders = .init()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
