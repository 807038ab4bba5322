import Foundation
import NotesCore

/// The upload form's chunked path, which its script (`upload.js`) takes: a file of any size up
/// to the attachment limit goes up in verified chunks through the content store's resumable
/// upload, the one `POST /v1/uploads` and `notes sync` use, with a browser session instead of a
/// bearer token (a cookie never authenticates `/v1/*`). A chunk's body streams to its place in
/// the staged content as it arrives, never held in memory; the script reads one chunk of the file
/// at a time. The form's plain post (`FilePages`) stays for browsers without scripts.
///
/// - `POST /upload/start` (form: `folder`, `name`, `hash`, `size`): checks where the file lands,
///   then opens the upload or finds it open; answers its state (`UploadState`), so a file sent
///   again resumes from the chunks already received.
/// - `PUT /upload/:hash/chunks/:index`: one chunk, its SHA-256 in `Content-Digest`, the CSRF token
///   in `X-CSRF-Token`; `204`.
/// - `POST /upload/:hash/complete` (form: `folder`, `name`): checks the whole content against its
///   hash and adds the attachment; answers `{"location"}`, the page to go to.
///
/// A refusal is the API's JSON error body, its message written for the person uploading.
struct ChunkedUploadRoutes: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("POST", "/upload/start") { context in .now(answer(context) { try start(context) }) }
        app.addStreaming("PUT", "/upload/:hash/chunks/:index", sink: { try chunkSink($0) }) { context in
            .now(answer(context) { try chunk(context) })
        }
        app.add("POST", "/upload/:hash/complete") { context in .now(answer(context) { try complete(context) }) }
    }

    /// What `complete` answers: where the browser goes next.
    struct Done: Encodable {
        let location: String
    }

    private var contents: ContentStore { services.contents }

    private func start(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let path = try landing(context)
        guard try FilePages.entry(at: path.value, userID: session.userID, notes: services.notes) == nil else { throw Self.taken(path) }
        let hash = context.form["hash"] ?? ""
        guard ContentHash.isValid(hash) else { throw HTTPError.invalidHash }
        guard let text = context.form["size"], text.utf8.count <= 18, let size = Int(text), size >= 0 else {
            throw HTTPError(422, code: "invalid_size", message: "The file's size did not come with the upload; reload the page and try again.")
        }
        let opened = try ContentController.mappingStoreFailures { try contents.openUpload(userID: session.userID, hash: hash, size: size) }
        return .wire(opened.state, status: opened.created ? 201 : 200)
    }

    /// The chunk's sink, from the head: the upload must be open and the declared length exactly
    /// the chunk's, before any byte is read.
    private func chunkSink(_ context: WebContext) throws -> (sink: any RequestBodySink, maxBytes: Int) {
        let (user, hash, index) = try chunkAddress(context)
        let (upload, length) = try contents.chunkTarget(userID: user, hash: hash, index: index)
        if let declared = context.request.headers["Content-Length"].flatMap({ Int($0) }), declared != length {
            throw ContentStoreError.chunkMismatch(index: index, expectedLength: length, receivedLength: declared)
        }
        let sink = try ContentController.mappingStoreFailures { try contents.blobs.makeChunkSink(for: upload, userID: user, index: index) }
        return (sink, length)
    }

    private func chunk(_ context: WebContext) throws -> HTTPResponse {
        let (user, hash, index) = try chunkAddress(context)
        guard let digest = context.request.headers["Content-Digest"].flatMap(ContentDigest.sha256(fromHeader:)) else {
            context.request.bodySink?.discard()
            throw HTTPError(400, code: "invalid_digest", message: "The chunk came without its SHA-256 (Content-Digest); reload the page and try again.")
        }
        // An empty body (the one chunk of an empty file) never opened a sink.
        let sink = try (context.request.bodySink as? any ChunkSink) ?? ContentController.mappingStoreFailures {
            try contents.blobs.makeChunkSink(for: contents.chunkTarget(userID: user, hash: hash, index: index).upload, userID: user, index: index)
        }
        defer { sink.discard() }
        try ContentController.mappingStoreFailures { try contents.finishChunk(sink, userID: user, hash: hash, index: index, digest: digest) }
        return .noContent()
    }

    private func complete(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let path = try landing(context)
        let hash = context.parameters["hash"] ?? ""
        guard ContentHash.isValid(hash) else { throw HTTPError.invalidHash }
        let stored = try ContentController.mappingStoreFailures { try contents.complete(userID: session.userID, hash: hash) }
        do {
            try services.notes.putAttachment(for: session, id: NoteID(), path: path, hash: stored.hash, precondition: .absent)
        } catch NoteStoreError.pathTaken {
            throw Self.taken(path)
        }
        let folder = WebFormat.folder(ofPath: path.value)
        let next = WebPath("/").query([("done", "uploaded")] + (folder.isEmpty ? [] : [("folder", folder)]))
        // The script goes there itself, so the address is the space's, as a redirect's would be.
        return .wire(Done(location: WebSpace.address(next.value, in: context.space)))
    }

    /// Where the file lands: the form's folder and file name under the upload form's rules.
    private func landing(_ context: WebContext) throws -> NotePath {
        let folder = (context.form["folder"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
        do {
            return try FilePages.uploadPath(folder: folder, fileName: context.form["name"] ?? "")
        } catch {
            throw HTTPError(422, code: "invalid_path", message: error.message)
        }
    }

    private static func taken(_ path: NotePath) -> HTTPError {
        HTTPError(409, code: "path_taken", message: "There is already a note or file at \(path.value); rename one of them first. Nothing was stored.")
    }

    private func chunkAddress(_ context: WebContext) throws -> (user: Int64, hash: String, index: Int) {
        let user = try context.signedIn().userID
        guard let hash = context.parameters["hash"], ContentHash.isValid(hash) else { throw HTTPError.invalidHash }
        guard let raw = context.parameters["index"], raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), raw.utf8.count <= 9,
              let index = Int(raw) else {
            throw HTTPError(422, code: "chunk_out_of_range", message: "The chunk index must be a whole number from 0.")
        }
        return (user, hash, index)
    }

    /// `body`'s answer, or its refusal as the JSON error body, in words for the person uploading
    /// where the content store's own are written for API clients; with the web app's headers.
    private func answer(_ context: WebContext, _ body: () throws -> HTTPResponse) -> HTTPResponse {
        var response: HTTPResponse
        do {
            response = try body()
        } catch ContentStoreError.tooLarge(let limit, let size) {
            response = .error(HTTPError(413, code: "attachment_too_large",
                                        message: "This file has \(WebFormat.size(size)); a file may have at most \(WebFormat.size(limit)). Nothing was stored."))
        } catch ContentStoreError.quotaExceeded(let quota, let used, _) {
            response = .error(HTTPError(507, code: "quota_exceeded",
                                        message: "Your account may store \(WebFormat.size(quota)) of files and uses \(WebFormat.size(used)); this file does not fit. Nothing was stored."))
        } catch {
            response = .error(HTTPError.answer(for: error, requestID: context.request.id, log: services.log))
        }
        WebSecurity.secure(&response)
        return response
    }
}
