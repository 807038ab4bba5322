import NotesCore

/// GET and HEAD: a note's bytes as stored, an attachment's from the content store as the API
/// serves it (ranges, `nosniff`, `sandbox`), a folder as a sentence saying what it is.
extension WebDAVResponder {
    func get(_ call: Call) throws -> HTTPResponse {
        guard let resource = try resource(at: call.location, userID: call.userID) else {
            throw HTTPError.notFound("Nothing is at \(call.location.path).")
        }
        guard let entry = resource.entry else {
            // No listing page: a folder is read with PROPFIND, and a page here would put names
            // into HTML outside the web app's rendering.
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"],
                                body: Array("This is a WebDAV folder of Notes; open it with a WebDAV client.\n".utf8))
        }
        var response: HTTPResponse
        if entry.kind == .attachment {
            guard let served = try ContentResponse.attachment(entry, userID: call.userID, contents: contents, request: call.request) else {
                throw HTTPError.contentNotFound
            }
            response = served
            // WebDAV's ETag is the content hash, quoted, as ContentResponse already gives it.
        } else {
            guard let note = try notes.note(userID: call.userID, id: entry.id), let text = note.content else {
                throw HTTPError.notFound("Nothing is at \(call.location.path).")
            }
            response = Self.noteResponse(Array(text.utf8), entry: entry, request: call.request)
        }
        response.headers["Last-Modified"] = DAVDate.http(fromMilliseconds: entry.updatedAt)
        return response
    }

    /// A note's bytes, whole or the one range asked for, with its ETag.
    static func noteResponse(_ bytes: [UInt8], entry: NoteRecord, request: HTTPRequest) -> HTTPResponse {
        let etag = DAVConditions.etag(entry)
        var headers: HTTPHeaders = ["Content-Type": DAVLiveProperties.noteContentType, "ETag": etag, "Accept-Ranges": "bytes",
                                    "Cache-Control": "private, no-cache", "Content-Security-Policy": "sandbox"]
        if Preconditions.ifNoneMatch(request.headers["If-None-Match"], matches: etag) {
            return HTTPResponse(status: 304, headers: ["ETag": etag])
        }
        switch ByteRange(header: request.headers["Range"], size: Int64(bytes.count)) {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: bytes)
        case .partial(let offset, let length):
            headers["Content-Range"] = "bytes \(offset)-\(offset + length - 1)/\(bytes.count)"
            return HTTPResponse(status: 206, headers: headers, body: Array(bytes[Int(offset)..<Int(offset + length)]))
        case .unsatisfiable:
            var refused = DAVResponse.error(HTTPError(416, code: "range_not_satisfiable",
                                                      message: "The range lies outside the note, which has \(bytes.count) bytes."))
            refused.headers["Content-Range"] = "bytes */\(bytes.count)"
            return refused
        }
    }
}
