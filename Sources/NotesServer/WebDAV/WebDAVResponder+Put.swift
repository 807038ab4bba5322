import Foundation
import NotesCore

/// PUT: a new revision of the note or attachment at the path, or a new entry there.
///
/// The limits are answered from the head, before any byte is stored: a note over the note
/// size and an attachment over the attachment size get 413, one past the quota 507. A note's
/// body is read in memory (it is at most the note size); an attachment's streams to disk as it
/// arrives (`DAVUploadSink`) and enters the content store by its hash, as an upload does.
extension WebDAVResponder {
    /// Decides from the head whether a body may be read: only once the caller signed in (so
    /// nobody without a token makes the server hold a body), an XML body up to
    /// `DAVXMLElement.maxBodyBytes`, a PUT's as the limits above say.
    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        do {
            let call = try self.call(for: head)
            guard head.method == "PUT" else { return .accept(maxBytes: DAVXMLElement.maxBodyBytes) }
            let space = try call.requireWrite()
            guard !call.location.path.isEmpty else { throw HTTPError.methodNotAllowed(allowed: Self.methods) }
            if EntryKind(path: call.location.path) == .note {
                return .accept(maxBytes: notes.limits.maxNoteBytes)
            }
            let announced = head.headers["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            try contents.admitWhole(userID: space.userID, hash: nil, size: announced ?? 0)
            return .stream(try DAVUploadSink(temporaryFolder: temporaryFolder), maxBytes: contents.limits.maxAttachmentBytes)
        } catch {
            return .refuse(HTTPError.answer(for: error, requestID: head.id, log: log))
        }
    }

    func put(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireWrite()
        let location = call.location
        guard !location.path.isEmpty, !location.endsInSlash else {
            throw HTTPError.methodNotAllowed(allowed: Self.methods.filter { $0 != "PUT" })
        }
        let existing = try resource(at: location, userID: space.userID)
        if existing?.isFolder == true {
            throw HTTPError(405, code: "is_a_folder", message: "A folder is at \(location.path); a file cannot replace it.",
                            headers: ["Allow": Self.methods.filter { $0 != "PUT" }.joined(separator: ", ")])
        }
        try requireParentFolder(location, userID: space.userID)
        try checkConditions(call, location: location, resource: existing, deep: false)
        let path = try Self.entryPath(location.path, isNew: existing == nil)
        let body = try DAVBody(call.request, kind: EntryKind(path: path.value), maxNoteBytes: notes.limits.maxNoteBytes,
                                temporaryFolder: temporaryFolder)
        let hash = try storeContent(body, userID: space.userID)
        let written = try writeEntry(call, path: path, body: body, hash: hash, expected: existing?.entry,
                                     strict: call.request.headers["If-Match"] != nil || call.request.headers["If"] != nil)
        return DAVResponse.empty(written.created ? 201 : 204, headers: ["ETag": DAVConditions.etag(written.note)])
    }

    /// The path an entry is written at: every path rule, and for a new entry the rule for new
    /// names, the same the API applies.
    /// - Throws: 400 naming the rule the name breaks.
    static func entryPath(_ raw: String, isNew: Bool) throws -> NotePath {
        let path = try NotePath(entry: raw)
        if isNew, let problem = path.newNoteProblem { throw problem }
        return path
    }

    /// Stores an attachment's bytes as content (nothing for a note) and returns its hash.
    func storeContent(_ body: DAVBody, userID: Int64) throws -> String? {
        guard case .attachment(let file, let size, let hash) = body else { return nil }
        defer { file?.close() }
        guard try !contents.missing(userID: userID, hashes: [hash]).isEmpty else { return hash }
        let sink = try contents.blobs.makeContentSink(userID: userID, hash: hash)
        var copied = true
        if let file {
            try file.forEachPiece(of: 1024 * 1024) { _, bytes in
                if !bytes.withUnsafeBytes({ sink.write($0) }) { copied = false }
            }
        }
        guard copied else {
            sink.discard()
            throw HTTPError.contentStoreFull
        }
        _ = try ContentController.mappingStoreFailures { try contents.storeWhole(sink, userID: userID, hash: hash, size: size) }
        return hash
    }

    /// Writes the entry at `path` over `expected` (the entry the checks saw; nil: a new one).
    ///
    /// Written against the revision the checks saw: a change that came in between is never
    /// overwritten unseen. With a condition (`strict`) that answers 412; without one the write
    /// is tried again over the newer version, which stays in history.
    func writeEntry(_ call: Call, path: NotePath, body: DAVBody, hash: String?, expected: NoteRecord?, strict: Bool) throws -> (note: NoteRecord, created: Bool) {
        var expected = expected
        for attempt in 1...3 {
            do {
                let id = expected?.id ?? NoteID()
                let precondition: WritePrecondition = expected.map { .revision($0.rev) } ?? .absent
                return try writeEntries(call) { db in
                    switch body {
                    case .note(let text):
                        return try notes.put(db, userID: call.userID, id: id, path: path, content: text, precondition: precondition,
                                             device: call.principal.device)
                    case .attachment:
                        return try notes.putAttachment(db, userID: call.userID, id: id, path: path, hash: hash ?? "",
                                                       precondition: precondition, device: call.principal.device)
                    }
                }
            } catch is StaleNoteError where !strict && attempt < 3 {
                expected = try notes.liveEntry(userID: call.userID, path: path.value)
            } catch is StaleNoteError {
                throw DAVConditions.failed("The file changed while this request was answered; nothing was written.")
            }
        }
        throw DAVConditions.failed("The file kept changing while this request was answered; nothing was written.")
    }
}

/// A PUT's body as the entry's kind needs it.
enum DAVBody {
    /// A note's text (UTF-8).
    case note(String)
    /// An attachment's bytes, on disk (nil: empty), with their length and SHA-256.
    case attachment(file: UnlinkedFile?, size: Int, hash: String)

    /// - Throws: 400 for a note that is not UTF-8, 413 for one over the note size.
    init(_ request: HTTPRequest, kind: EntryKind, maxNoteBytes: Int, temporaryFolder: String) throws(HTTPError) {
        switch kind {
        case .note:
            guard request.body.count <= maxNoteBytes else {
                throw HTTPError(413, code: "note_too_large", message: "A note may have at most \(maxNoteBytes) bytes.")
            }
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw HTTPError.badRequest("A note (.md, .markdown) must be UTF-8 text; store other bytes under another extension.",
                                           code: "note_not_utf8")
            }
            self = .note(text)
        case .attachment:
            if let sink = request.bodySink as? DAVUploadSink {
                let received = sink.finish()
                self = .attachment(file: received.file, size: received.size, hash: received.hash)
            } else if request.body.isEmpty {
                self = .attachment(file: nil, size: 0, hash: SHA256.hex(of: request.body))
            } else {
                // A body the server read in memory (a responder that did not stream it).
                let file: UnlinkedFile
                do { file = try UnlinkedFile(in: temporaryFolder) } catch { throw HTTPError.contentStoreFull }
                guard request.body.withUnsafeBytes({ file.append($0) }) else {
                    file.close()
                    throw HTTPError.contentStoreFull
                }
                self = .attachment(file: file, size: request.body.count, hash: SHA256.hex(of: request.body))
            }
        }
    }
}
