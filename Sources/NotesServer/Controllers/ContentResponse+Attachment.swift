import NotesCore

extension ContentResponse {
    /// A live attachment's current bytes as every route serves them (`GET /v1/attachments/{id}`,
    /// the web app's `/files/...`, a publication's `/p/.../a/...`): the media type from the fixed
    /// table by extension, inline only for plain images and PDF, a download for everything else,
    /// under `nosniff` and `Content-Security-Policy: sandbox`, with Range.
    /// - Returns: nil when the user's store lacks the content (the caller's 404).
    static func attachment(_ entry: NoteRecord, userID: Int64, contents: ContentStore, request: HTTPRequest) throws -> HTTPResponse? {
        guard let file = try ContentController.mappingStoreFailures({ try contents.open(userID: userID, hash: entry.hash) }) else {
            return nil
        }
        let mediaType = MediaType.forPath(entry.path)
        let fileName = entry.path.split(separator: "/").last.map(String.init) ?? entry.path
        return make(file, hash: entry.hash, contentType: mediaType.value,
                    disposition: disposition(inline: mediaType.isSafeInline, fileName: fileName), request: request)
    }
}
