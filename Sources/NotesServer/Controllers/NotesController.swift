import Foundation
import NotesCore

/// `/v1/notes`: list, read (JSON, raw Markdown or HTML), create/update with preconditions, delete.
struct NotesController: Sendable {
    let store: NoteStore
    /// Where a large note is rendered, off the connection threads.
    let renderWorker: RenderWorker
    let log: @Sendable (String) -> Void

    func register(in router: inout Router) {
        router.add("GET", "/v1/notes", access: .read) { try .now(list($0)) }
        router.add("GET", "/v1/notes/:id", access: .read, readsNote: true) { try .now(get($0)) }
        router.add("PUT", "/v1/notes/:id", access: .write) { try .now(put($0)) }
        router.add("DELETE", "/v1/notes/:id", access: .write) { try .now(delete($0)) }
        router.add("GET", "/v1/notes/:id/html", access: .read) { try html($0) }
        router.add("GET", "/v1/notes/:id/metadata", access: .read) { try metadata($0) }
        router.add("GET", "/v1/notes/:id/revisions", access: .read) { try .now(revisions($0)) }
        router.add("GET", "/v1/notes/:id/revisions/:rev", access: .read) { try .now(revision($0)) }
    }

    private func list(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let limit = try context.intQuery("limit", default: 200, range: 1...store.limits.maxPageSize)
        let pathFilter = try context.request.query["path"].map { try Self.validEntryPath($0).value }
        let notes = try store.list(userID: user, after: context.request.query["after"], limit: limit, path: pathFilter,
                                   kinds: try context.kindsQuery())
        let next = pathFilter == nil && notes.count == limit ? notes.last?.path : nil
        return .wire(NoteListPage(notes: notes.map(\.resource), nextCursor: next))
    }

    private func get(_ context: RequestContext) throws -> HTTPResponse {
        let note = try liveNote(context)
        // The note cache's copy carries its answer encoded once for this revision.
        let kept = context.noteReadAhead?.answer.flatMap { $0.id == note.id && $0.rev == note.rev ? $0 : nil }
        let etag = kept?.etag ?? Preconditions.etag(note.rev)
        if Preconditions.ifNoneMatch(context.request.headers["If-None-Match"], matches: etag) {
            return HTTPResponse(status: 304, headers: ["ETag": etag])
        }
        if note.kind == .note && Self.prefersMarkdown(context.request.headers["Accept"]) {
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/markdown; charset=utf-8", "ETag": etag],
                                body: Array((note.content ?? "").utf8))
        }
        if let kept {
            return HTTPResponse(status: 200, headers: ["Content-Type": HTTPResponse.jsonContentType, "ETag": etag], body: kept.json)
        }
        var response = HTTPResponse.wire(note.resource)
        response.headers["ETag"] = etag
        return response
    }

    /// The fragment (kept per revision, see `NoteStore+HTML.swift`) or the standalone page, in
    /// the server's flavour or the one `?flavour=` names; a note too large to render on the
    /// connection thread is rendered by `renderWorker`, at most a few per user at once.
    private func html(_ context: RequestContext) throws -> HTTPOutcome {
        let user = try context.caller().userID
        let id = try context.noteID()
        let flavour = try Self.flavour(context.request.query["flavour"])
        let standalone = ["1", "true", "yes"].contains(context.request.query["standalone"] ?? "")
        if standalone || (flavour != nil && flavour != store.rendering.flavour) {
            guard let note = try store.note(userID: user, id: id), !note.deleted, note.kind == .note else { throw HTTPError.noteNotFound }
            let fileName = try NotePath(note.path).fileName
            let content = note.content ?? ""
            return try offThreadIfLarge(content, flavour: flavour, user: user, requestID: context.request.id) { [store] in
                let rendered = try store.rendering.render(content, notePath: note.path, paths: { try store.livePaths(userID: user) },
                                                          contents: { try store.liveNoteContent(userID: user, path: $0) },
                                                          flavour: flavour)
                let body = standalone ? HTMLPage(title: rendered.title(orFileName: fileName), bodyHTML: rendered.html).render() : rendered.html
                return Self.htmlResponse(body, rev: note.rev)
            }
        }
        guard let lookup = try store.htmlLookup(userID: user, id: id) else { throw HTTPError.noteNotFound }
        switch lookup {
        case .kept(let html, let rev):
            return .now(Self.htmlResponse(html, rev: rev))
        case .unrendered(let note):
            return try offThreadIfLarge(note.content, flavour: nil, user: user, requestID: context.request.id) { [store] in
                Self.htmlResponse(try store.renderAndKeep(note, userID: user), rev: note.rev)
            }
        }
    }

    /// The flavour `?flavour=` names (`default` or `commonmark`), nil when absent.
    static func flavour(_ raw: String?) throws(HTTPError) -> MarkdownFlavour? {
        guard let raw else { return nil }
        guard let flavour = NoteRendering.flavour(named: raw) else {
            throw HTTPError.badRequest("flavour must be default or commonmark.", code: "invalid_parameter")
        }
        return flavour
    }

    /// The note's title, tags and aliases, read by rendering it in the server's flavour (a note
    /// over 64 KiB on the render worker, as for its HTML).
    private func metadata(_ context: RequestContext) throws -> HTTPOutcome {
        let user = try context.caller().userID
        let note = try liveNote(context)
        guard note.kind == .note else { throw HTTPError.noteNotFound }
        let fileName = try NotePath(note.path).fileName
        let content = note.content ?? ""
        return try offThreadIfLarge(content, flavour: nil, user: user, requestID: context.request.id) { [store] in
            let rendered = try store.rendering.render(content, notePath: note.path, paths: { [] })
            let metadata = NoteMetadata(id: note.id, rev: note.rev, title: rendered.title(orFileName: fileName),
                                        tags: rendered.tags, aliases: rendered.frontMatter?.aliases ?? [])
            var response = HTTPResponse.wire(metadata)
            response.headers["ETag"] = Preconditions.etag(note.rev)
            return response
        }
    }

    /// `render`'s answer now when `content` renders on the connection thread (small, or past the
    /// preflight's bound); else later, from the worker.
    private func offThreadIfLarge(_ content: String, flavour: MarkdownFlavour?, user: Int64, requestID: String,
                                  _ render: @escaping @Sendable () throws -> HTTPResponse) throws -> HTTPOutcome {
        guard !RenderWorker.rendersInline(content, flavour: flavour, with: store.rendering) else { return .now(try render()) }
        return .later { [renderWorker, log] in
            do {
                return try await renderWorker.run(for: user, render)
            } catch {
                return .error(HTTPError.answer(for: error, requestID: requestID, log: log))
            }
        }
    }

    private static func htmlResponse(_ body: String, rev: Int64) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            "Content-Type": "text/html; charset=utf-8",
            "ETag": Preconditions.etag(rev),
            // The HTML is already safe (no raw HTML, no script links); the policy is a second wall.
            "Content-Security-Policy": "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'",
            "X-Content-Type-Options": "nosniff",
        ], body: Array(body.utf8))
    }

    private func put(_ context: RequestContext) throws -> HTTPResponse {
        let caller = try context.caller()
        let user = caller.userID
        let id = try context.noteID()
        let precondition = try Preconditions.forPut(context.request)
        let body = try context.decode(PutNoteRequest.self)
        let path = try Self.validPath(body.path)
        do {
            let result = try store.put(userID: user, id: id, path: path, content: body.content, precondition: precondition,
                                       device: caller.device, author: caller.accountID)
            var response = HTTPResponse.wire(result.note.resource, status: result.created ? 201 : 200)
            response.headers["ETag"] = Preconditions.etag(result.note.rev)
            return response
        } catch let stale as StaleNoteError {
            return Self.stale(stale)
        }
    }

    private func delete(_ context: RequestContext) throws -> HTTPResponse {
        let caller = try context.caller()
        let user = caller.userID
        let id = try context.noteID()
        guard let rev = try Preconditions.revision(in: context.request.headers["If-Match"], header: "If-Match") else {
            throw HTTPError.preconditionRequired
        }
        do {
            let note = try store.delete(userID: user, id: id, ifMatch: rev, device: caller.device, author: caller.accountID)
            var response = HTTPResponse.wire(note.resource)
            response.headers["ETag"] = Preconditions.etag(note.rev)
            return response
        } catch let stale as StaleNoteError {
            return Self.stale(stale)
        }
    }

    private func revisions(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let revisions = try store.revisions(userID: user, id: try context.noteID())
        guard !revisions.isEmpty else { throw HTTPError.noteNotFound }
        return .wire(RevisionList(revisions: revisions))
    }

    private func revision(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        guard let raw = context.parameters["rev"], let rev = Int64(raw), rev > 0 else {
            throw HTTPError.badRequest("The revision must be a positive whole number.", code: "invalid_parameter")
        }
        guard let revision = try store.revision(userID: user, id: try context.noteID(), rev: rev) else {
            throw HTTPError.notFound("This note has no such revision.")
        }
        return .wire(revision)
    }

    /// The caller's live note named by `:id`: the one the router read with the token, else read now.
    private func liveNote(_ context: RequestContext) throws -> NoteRecord {
        let user = try context.caller().userID
        let id = try context.noteID()
        let found: NoteRecord?
        if let readAhead = context.noteReadAhead, readAhead.id == id {
            found = readAhead.note
        } else {
            found = try store.note(userID: user, id: id)
        }
        guard let note = found else { throw HTTPError.noteNotFound }
        guard !note.deleted else { throw HTTPError.notFound("The note was deleted.", code: "note_deleted") }
        return note
    }

    /// A note's path: the path rules, ending `.md` or `.markdown` in any letter case.
    static func validPath(_ raw: String) throws(HTTPError) -> NotePath {
        let path: NotePath
        do { path = try NotePath(entry: raw) } catch { throw HTTPError.invalidPath(error) }
        guard path.kind == .note else { throw HTTPError.invalidPath(.notMarkdown) }
        return path
    }

    /// A path of either kind (an attachment's, or a note's).
    static func validEntryPath(_ raw: String) throws(HTTPError) -> NotePath {
        do { return try NotePath(entry: raw) } catch { throw HTTPError.invalidPath(error) }
    }

    /// 412 with the note's current state beside the error, so the client can merge without another request.
    static func stale(_ error: StaleNoteError) -> HTTPResponse {
        .wire(StaleNoteBody(error: .init(code: "precondition_failed", message: error.message), note: error.current?.resource), status: 412)
    }

    private static func prefersMarkdown(_ accept: String?) -> Bool {
        guard let accept = accept?.lowercased() else { return false }
        return accept.contains("text/markdown") && !accept.hasPrefix("application/json")
    }
}

/// The 412 answer: the usual error plus the note as it is now.
struct StaleNoteBody: Encodable, WireDescribed {
    var error: APIErrorBody.Detail
    var note: NoteResource?

    static let wireShape = WireShape<StaleNoteBody>("StaleNote", summary: "A 412: the error and the note as it is now.", fields: [
        .required("error", \.error),
        .optional("note", \.note, ["nullable": true]),
    ])
}
