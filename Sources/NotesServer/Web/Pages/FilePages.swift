import Foundation
import NotesCore

/// A user's attachments in the browser: `/files/<path>` serves one by its path (so a note's
/// relative images and links work once rewritten, see `WebNoteLinks`), and `/upload` stores a
/// file sent from the upload form as a new attachment.
///
/// A file is answered exactly as `GET /v1/attachments/{id}` answers it
/// (`ContentResponse.attachment`): the media type from the fixed table, `nosniff`,
/// `Content-Security-Policy: sandbox`, inline only for plain images and PDF, Range. An upload
/// goes through the same content store, limits and entry rules as the API's upload and batch,
/// so the changes feed carries it and `notes sync` downloads it.
struct FilePages: Sendable {
    let services: WebServices

    /// Room left in a request for the form around the file (boundaries, headers, CSRF, folder).
    static let formOverheadBytes = 16 * 1024

    func register(in app: inout WebApp) {
        app.add("GET", "/files/*path") { context in .now(try file(context)) }
        app.add("GET", "/upload") { context in .now(uploadPage(context, folder: context.request.query["folder"] ?? "")) }
        app.add("POST", "/upload") { context in .now(try upload(context)) }
    }

    /// The largest file the upload form's plain post takes (without scripts): the published
    /// largest attachment, capped by the largest request the server reads (that post is read into
    /// memory whole).
    var uploadLimit: Int {
        min(services.contents.limits.maxAttachmentBytes, max(0, services.maxRequestBytes - Self.formOverheadBytes))
    }

    /// The largest file the upload form's script sends (in chunks, `ChunkedUploadRoutes`): the
    /// published largest attachment.
    var chunkedUploadLimit: Int { services.contents.limits.maxAttachmentBytes }

    /// The web address of the entry at `path`: `/files/` and each segment percent-encoded.
    static func address(of path: String) -> WebPath {
        path.split(separator: "/").reduce(WebPath("/files")) { $0.appending(String($1)) }
    }

    // MARK: Serving

    private func file(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let missing = HTTPError.notFound("There is no file at this address; it may have been moved or deleted.")
        guard let raw = context.parameters["path"], let path = try? NotePath(entry: raw),
              let entry = try Self.entry(at: path.value, userID: session.userID, notes: services.notes), entry.kind == .attachment,
              let response = try ContentResponse.attachment(entry, userID: session.userID, contents: services.contents,
                                                            request: context.request) else {
            throw missing
        }
        return response
    }

    /// The live note or attachment at exactly `path`, if any.
    static func entry(at path: String, userID: Int64, notes: NoteStore) throws -> NoteRecord? {
        try notes.list(userID: userID, after: nil, limit: 1, path: path, kinds: .kinds([.note, .attachment])).first
    }

    // MARK: Uploading

    /// The upload form, for the home page and the upload page: a folder and one file. Its script
    /// (`upload.js`) sends the file in chunks, up to the attachment limit, and shows the progress;
    /// without scripts the form posts the file whole, up to the request limit.
    func uploadForm(csrfToken: String, folder: String) -> HTML {
        """
        <form action="/upload" method="post" enctype="multipart/form-data" class="upload" data-chunked-max="\(String(chunkedUploadLimit))" \
        data-chunked-max-text="\(WebFormat.size(chunkedUploadLimit))">
        \(WebFormat.csrfField(csrfToken))
        <label for="upload-folder">Folder</label>
        <input type="text" id="upload-folder" name="folder" value="\(folder)" placeholder="(top level)" autocapitalize="none" spellcheck="false">
        <label for="upload-file">File</label>
        <input type="file" id="upload-file" name="file" required aria-describedby="upload-hint">
        <p class="hint" id="upload-hint">At most \(WebFormat.size(chunkedUploadLimit)).<noscript> Without JavaScript, at most \(WebFormat.size(uploadLimit)).</noscript> \
        Embed an image in a note with <code>![description](name.png)</code>, relative to the note's folder.</p>
        <div class="form-actions"><button type="submit">Upload</button></div>
        <p class="upload-status" id="upload-status" role="status" aria-live="polite" hidden><progress max="1" value="0"></progress> <span></span></p>
        </form>
        """
    }

    private func uploadPage(_ context: WebContext, folder: String, error: String? = nil, status: Int = 200) -> HTTPResponse {
        WebResponse.page(context.layout("Upload a file", .notes), """
            <div class="narrow card">
            <h1>Upload a file</h1>
            \(error.map { WebFormat.notice($0, error: true) } ?? .empty)
            \(uploadForm(csrfToken: context.csrfToken, folder: folder))
            </div>
            """, status: status)
    }

    private func upload(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let folder = (context.form["folder"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
        let refuse = { (message: String, status: Int) in uploadPage(context, folder: folder, error: message, status: status) }
        guard let file = context.file, file.fieldName == "file", !file.fileName.isEmpty else {
            return refuse("Choose a file to upload.", 422)
        }
        let path: NotePath
        do {
            path = try Self.uploadPath(folder: folder, fileName: file.fileName)
        } catch {
            return refuse(error.message, 422)
        }
        guard file.bytes.count <= uploadLimit else {
            return refuse("\(file.fileName) has \(WebFormat.size(file.bytes.count)); a file may have at most \(WebFormat.size(uploadLimit)). Nothing was stored.", 413)
        }
        let hash: String
        do {
            hash = try store(file.bytes, userID: session.userID)
        } catch ContentStoreError.tooLarge(let limit, _) {
            return refuse("A file may have at most \(WebFormat.size(limit)). Nothing was stored.", 413)
        } catch ContentStoreError.quotaExceeded(let quota, let used, _) {
            return refuse("Your account may store \(WebFormat.size(quota)) of files and uses \(WebFormat.size(used)); \(file.fileName) does not fit. Nothing was stored.", 507)
        } catch let error as HTTPError where error.status == 507 {
            return refuse("The server has no room left for this file; nothing was stored. Try again once its operator has freed space.", 507)
        }
        do {
            try services.notes.putAttachment(for: session, id: NoteID(), path: path, hash: hash, precondition: .absent)
        } catch NoteStoreError.pathTaken {
            return refuse("There is already a note or file at \(path.value); rename one of them first.", 409)
        }
        return WebResponse.redirect(WebPath("/").query([("done", "uploaded")] + (folder.isEmpty ? [] : [("folder", folder)])))
    }

    /// The path a file lands at: the folder (as typed, `/`-separated) and the browser's file
    /// name, under the server's path rules for a new entry; an attachment, never a note, and
    /// never a dot-file (which sync never carries).
    static func uploadPath(folder: String, fileName rawName: String) throws(UploadPathProblem) -> NotePath {
        // Some browsers send a whole Windows path; the name is its last part.
        let name = String(rawName.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
        let segments = (folder.isEmpty ? [] : folder.split(separator: "/", omittingEmptySubsequences: false).map(String.init)) + [name]
        if let hidden = segments.first(where: { $0.hasPrefix(".") || $0.isEmpty }) {
            throw UploadPathProblem(message: hidden.isEmpty ? "The folder has an empty part (two / in a row)."
                                    : "\(hidden) starts with a dot: such files and folders never sync, so it cannot be uploaded.")
        }
        let path: NotePath
        do {
            path = try NotePath(entry: segments.joined(separator: "/"))
        } catch {
            throw UploadPathProblem(message: "That path cannot be used: \(error).")
        }
        if let problem = path.newNoteProblem { throw UploadPathProblem(message: "That path cannot be used: \(problem).") }
        guard path.kind == .attachment else {
            throw UploadPathProblem(message: "\(name) is a Markdown note, not a file: create it with New note (or sync it) instead.")
        }
        return path
    }

    /// Why an upload cannot land where asked, in words for the form.
    struct UploadPathProblem: Error {
        let message: String
    }

    /// Stores `bytes` in the user's content store through the same checked, resumable upload the
    /// API uses (size limit and quota first, each chunk verified, the whole hashed), and returns
    /// the content's hash. Content the user already holds is not stored again.
    private func store(_ bytes: ArraySlice<UInt8>, userID: Int64) throws -> String {
        let contents = services.contents
        let hash = SHA256.hex(of: bytes)
        let state = try ContentController.mappingStoreFailures { try contents.openUpload(userID: userID, hash: hash, size: bytes.count) }.state
        for index in 0..<state.chunkCount where !state.received.contains(index) {
            let start = bytes.startIndex + index * state.chunkSize
            let chunk = bytes[start..<min(start + state.chunkSize, bytes.endIndex)]
            let sink = try ContentController.mappingStoreFailures { try contents.blobs.makeChunkSink(for: state, userID: userID, index: index) }
            defer { sink.discard() }
            guard chunk.withUnsafeBytes({ sink.write($0) }) else { throw HTTPError.contentStoreFull }
            try ContentController.mappingStoreFailures {
                try contents.finishChunk(sink, userID: userID, hash: hash, index: index, digest: SHA256.digest(of: chunk))
            }
        }
        _ = try ContentController.mappingStoreFailures { try contents.complete(userID: userID, hash: hash) }
        return hash
    }
}

/// Where the relative links and images of a note shown in the web app lead.
///
/// A note's relative destinations are written for its folder on disk (`img/chart.png` beside
/// `work/plan.md`); in the browser they would resolve against the page's own address. Each one
/// that resolves from the note's folder to a live attachment becomes its `/files/` address, one
/// that resolves to a note becomes that note's page; anything else (absolute, with a scheme,
/// within the page, or naming nothing) is kept as written.
struct WebNoteLinks {
    let notePath: String
    /// The live entry at a path (a read per relative link: notes hold few).
    let entry: (String) -> NoteRecord?

    init(notePath: String, entry: @escaping (String) -> NoteRecord?) {
        self.notePath = notePath
        self.entry = entry
    }

    /// The links of `userID`'s note at `notePath`, leading to that user's entries as they are
    /// now: what the note page and the editor's preview both render with.
    init(notePath: String, userID: Int64, notes: NoteStore) {
        self.init(notePath: notePath) { path in try? FilePages.entry(at: path, userID: userID, notes: notes) }
    }

    func treat(_ destination: LinkDestination) -> LinkTreatment {
        let url = destination.url
        guard !url.isEmpty, !url.hasPrefix("#"), !url.hasPrefix("/"), !PublicationLinks.hasScheme(url),
              let segments = PublicationLinks.resolve(url, from: notePath),
              let path = try? NotePath(entry: segments.joined(separator: "/")), let found = entry(path.value) else { return .keep }
        switch found.kind {
        case .attachment:
            return .rewrite(FilePages.address(of: found.path).value)
        case .note:
            guard !destination.isImage else { return .keep }
            var page = WebFormat.notePath(found.id)
            if let hash = url.firstIndex(of: "#") {
                let fragment = String(url[url.index(after: hash)...])
                if !fragment.isEmpty { page = page.fragment(fragment.removingPercentEncoding ?? fragment) }
            }
            return .rewrite(page.value)
        }
    }
}
