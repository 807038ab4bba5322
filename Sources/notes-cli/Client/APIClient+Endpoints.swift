import Foundation
import NotesCore

/// Typed calls for the endpoints the commands use; each goes through `send`, so each gets the
/// same signing, refresh, replay and retry rules.
extension APIClient {
    /// Sends `request` and decodes its JSON answer.
    func json<T: Decodable>(_ type: T.Type, _ request: APIRequest) async throws -> T {
        let response = try await send(request)
        return try decode(type, from: response, what: "\(request.method) \(request.path)")
    }

    /// `GET /v1/me`: who the token belongs to.
    func me() async throws -> UserResource {
        try await json(UserResource.self, APIRequest("GET", "/v1/me"))
    }

    /// `GET /v1/notes`: one page of live notes (no content), ordered by path.
    func listNotes(limit: Int, after cursor: String? = nil, path: String? = nil) async throws -> NoteListPage {
        // Both kinds: without `kinds` the server lists notes only (clients from before attachments).
        var query = [("limit", String(limit)), ("kinds", "note,attachment")]
        if let cursor { query.append(("after", cursor)) }
        if let path { query.append(("path", path)) }
        return try await json(NoteListPage.self, APIRequest("GET", "/v1/notes", query: query))
    }

    /// Every live note, following `next_cursor` to the last page.
    /// - Throws: `ClientError` when the server keeps handing out pages without progress (no note
    ///   it had not listed already, a cursor it gave before) or more notes than any account holds.
    func allNotes(pageSize: Int = 500) async throws -> [NoteResource] {
        var notes: [NoteResource] = []
        var cursor: String?
        var cursors: Set<String> = []
        var ids: Set<NoteID> = []
        repeat {
            let page = try await listNotes(limit: pageSize, after: cursor)
            notes += page.notes
            let newNotes = page.notes.filter { ids.insert($0.id).inserted }.count
            if let next = page.nextCursor {
                guard newNotes > 0, cursors.insert(next).inserted, notes.count <= FeedProgress.maxEntries else {
                    throw ClientError.protocolViolation("the server's note list promises more but makes no progress; stopped reading it")
                }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return notes
    }

    /// The live note at `path` (NFC-normalised first), or nil when there is none.
    func note(atPath path: NotePath) async throws -> NoteResource? {
        try await listNotes(limit: 1, path: path.value).notes.first { $0.path == path.value }
    }

    /// `GET /v1/notes/{id}`: the note's exact bytes, checked against its hash and the note limit
    /// (the JSON answer carries the hash; the `text/markdown` one does not).
    func rawContent(of id: NoteID) async throws -> Data {
        let note = try await json(NoteResource.self, APIRequest("GET", "/v1/notes/\(id.value)"))
        guard let content = note.content else {
            throw ClientError.protocolViolation("the server sent \(Terminal.printable(note.path)) without its content")
        }
        try await checkDownloaded(content, hash: note.hash, path: note.path)
        return Data(content.utf8)
    }

    /// `GET /v1/search`: best matches first.
    func search(_ query: String, limit: Int) async throws -> SearchResults {
        try await json(SearchResults.self, APIRequest("GET", "/v1/search", query: [("q", query), ("limit", String(limit))]))
    }

    /// `GET /v1/tokens`: the personal tokens, without their secrets.
    func personalTokens() async throws -> PersonalTokenList {
        try await json(PersonalTokenList.self, APIRequest("GET", "/v1/tokens"))
    }

    /// `POST /v1/tokens`: a new personal token, its secret shown this once. Not idempotent and
    /// not retried after a possibly delivered request: a retry could mint a second token.
    func createPersonalToken(_ body: CreateTokenRequest) async throws -> PersonalTokenResource {
        try await json(PersonalTokenResource.self, .json("POST", "/v1/tokens", body))
    }

    /// `DELETE /v1/tokens/{id}`.
    func revokePersonalToken(id: String) async throws {
        _ = try await send(APIRequest("DELETE", "/v1/tokens/\(ServerURL.encodePathSegment(id))"))
    }

    /// `POST /v1/auth/logout`: revokes this session on the server. Idempotent in effect (a
    /// second revoke of the same session changes nothing), so retried like a DELETE.
    func logout() async throws {
        _ = try await send(APIRequest("POST", "/v1/auth/logout", idempotent: true))
    }

    // History (notes log/cat --rev/restore/trash/purge).

    /// `GET /v1/notes/{id}/revisions`: newest first, without content.
    func revisions(of id: NoteID) async throws -> [RevisionResource] {
        try await json(RevisionList.self, APIRequest("GET", "/v1/notes/\(id.value)/revisions")).revisions
    }

    /// `GET /v1/notes/{id}/revisions/{rev}`: one revision with its content.
    func revision(of id: NoteID, rev: Int64) async throws -> RevisionResource {
        try await json(RevisionResource.self, APIRequest("GET", "/v1/notes/\(id.value)/revisions/\(rev)"))
    }

    /// Every page of `GET /v1/trash`, notes and attachments (only entries that had `path` when
    /// given), most recently deleted first.
    func trash(path: String? = nil) async throws -> [TrashEntry] {
        var entries: [TrashEntry] = [], cursor: String?
        repeat {
            let query = [("limit", "500"), ("kinds", "note,attachment")] + (path.map { [("path", $0)] } ?? []) + (cursor.map { [("before", $0)] } ?? [])
            let page = try await json(TrashPage.self, APIRequest("GET", "/v1/trash", query: query))
            entries += page.notes
            guard page.nextCursor != cursor else { break }
            cursor = page.nextCursor
        } while cursor != nil
        return entries
    }

    /// `PUT /v1/notes/{id}`: an update at `ifMatch`, or (nil) a create that also re-creates a deleted id.
    func putNote(_ id: NoteID, _ body: PutNoteRequest, ifMatch: Int64?) async throws -> NoteResource {
        var request = try APIRequest.json("PUT", "/v1/notes/\(id.value)", body)
        request.headers[ifMatch == nil ? "If-None-Match" : "If-Match"] = ifMatch.map { "\"\($0)\"" } ?? "*"
        return try await json(NoteResource.self, request)
    }

    /// `POST /v1/notes/{id}/purge` at `ifMatch`; retried like a DELETE, since a second purge answers as the first.
    func purge(_ id: NoteID, ifMatch: Int64) async throws -> PurgeResult {
        var request = APIRequest("POST", "/v1/notes/\(id.value)/purge", idempotent: true)
        request.headers["If-Match"] = "\"\(ifMatch)\""
        return try await json(PurgeResult.self, request)
    }
}
