import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Each wire type's `WireShape` is the one place its fields are listed: what the shape writes
/// must be what the Codable type encodes to, key for key and byte for byte, so a field added to
/// the type and not to its shape (or the other way round) fails here.
@Suite("Wire shapes")
struct WireShapeTests {
    /// One value of each described wire type, every optional set, so every field is written.
    static func samples() -> [any WireDescribed & Encodable] {
        let id = NoteID()
        let time = "2026-11-29T17:30:00.123Z"
        let hash = String(repeating: "0f", count: 32)
        let note = NoteResource(id: id, path: "a/\"b\".md", content: "x\n", hash: hash, rev: 3, size: 2, createdAt: time, updatedAt: time,
                                deleted: false, kind: .attachment, mediaType: "image/png")
        let user = UserResource(id: 1, username: "alice", createdAt: time)
        let token = PersonalTokenResource(id: "tok", name: "ci", scope: .write, createdAt: time, expiresAt: time, lastUsedAt: time, token: "npt_x")
        let operation = BatchOperation(op: .put, id: id, path: "a.png", content: "x", ifMatch: 2, ifNoneMatch: "*", kind: .attachment, hash: hash)
        let result = BatchResult(id: id, status: 412, note: note, error: .init(code: "precondition_failed", message: "Stale."))
        let trash = TrashEntry(id: id, path: "a.md", rev: 4, lastRev: 3, size: 1, deletedAt: time, purgeAt: time)
        let revision = RevisionResource(id: id, rev: 3, path: "a.md", hash: hash, size: 1, deleted: false, createdAt: time, content: "x",
                                        device: "laptop", kind: .attachment, mediaType: "image/png", author: "alice")
        let hit = SearchResults.Hit(id: id, path: "a.md", snippet: "a **b** c", rev: 3)
        let publication = PublicationResource(noteId: id, path: "a.md", createdAt: time, expiresAt: time, indexable: true, url: "/p/t", token: "t")
        let contentResult = ContentBatchResult(hash: hash, size: 9, status: .contentMismatch)
        return [
            note, PutNoteRequest(path: "a.md", content: "x"), NoteListPage(notes: [note], nextCursor: "a.md"),
            ChangesPage(changes: [note], cursor: "3", hasMore: true, userId: 1), revision, RevisionList(revisions: [revision]),
            hit, SearchHighlight(start: 1, end: 2), SearchResults(results: [hit]),
            operation, BatchRequest(operations: [operation]), result,
            BatchResponse(results: [result], cursorBefore: "3", cursorAfter: "5"),
            APIErrorBody(code: "not_found", message: "Nothing here."), APIErrorBody.Detail(code: "c", message: "m"),
            ServerLimits(maxNoteBytes: 1, maxRequestBytes: 2, maxBatchOperations: 3, maxPageSize: 4, requestsPerMinute: 5,
                         maxPageBytes: 6, maxUnauthenticatedRequestBytes: 7, maxWaitSeconds: 8, maxWaitersPerUser: 9, maxWaiters: 10,
                         maxAttachmentBytes: 11, uploadChunkBytes: 12, quotaBytes: 13, maxContentBatchBytes: 14),
            LoginRequest(username: "a", password: "p", device: "laptop", replacesRefreshToken: "nrt_x"), RefreshRequest(refreshToken: "nrt_x"),
            TokenResponse(accessToken: "nat_x", expiresIn: 3600, refreshToken: "nrt_x", user: user), user,
            CreateTokenRequest(name: "ci", scope: .read, expiresIn: 60), token, PersonalTokenList(tokens: [token]),
            trash, TrashPage(notes: [trash], nextCursor: "3"), PurgeResult(id: id, path: "a.md", purgedRevisions: 2, rev: 4),
            CreatePublicationRequest(expiresIn: 60, indexable: true), publication, PublicationList(publications: [publication]),
            TokenGrantRequest(code: "c", codeVerifier: "v", redirectUri: "http://127.0.0.1:1/", device: "d"),
            SignInProvidersResponse(providers: [.init(id: "g", name: "G")]),
            DeviceAuthorizationRequest(device: "d"),
            DeviceAuthorizationResponse(deviceCode: "dc", userCode: "BCDF-GHJK", verificationUri: "/device",
                                        verificationUriComplete: "/device?code=BCDF-GHJK", expiresIn: 600, interval: 5),
            DeviceTokenRequest(deviceCode: "dc"),
            ContentMissingRequest(hashes: [hash]), ContentMissingResponse(missing: [hash]), UploadRequest(hash: hash, size: 9),
            UploadState(hash: hash, size: 9, chunkSize: 8, received: [0, 1]), StoredContent(hash: hash, size: 9),
            contentResult, ContentBatchResponse(contents: [contentResult]),
        ]
    }

    static func shapeJSON<Wire: WireDescribed>(_ value: Wire) -> [UInt8] {
        var writer = WireJSONWriter()
        Wire.wireShape.write(value, to: &writer)
        return writer.bytes
    }

    static func fieldNames<Wire: WireDescribed>(_ value: Wire) -> [String] { Wire.wireShape.fields.map(\.name) }

    @Test("every described wire type's shape writes the bytes JSONEncoder writes for it, every optional set, and lists exactly its encoded keys")
    func shapesWriteWhatTheEncoderWrites() throws {
        for sample in Self.samples() {
            let encoded = try WireJSON.encoder().encode(sample)
            #expect(Self.shapeJSON(sample) == Array(encoded), "\(type(of: sample))")
            let keys = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any]).keys
            #expect(Set(Self.fieldNames(sample)) == Set(keys), "\(type(of: sample))")
        }
    }

    @Test("a shape leaves out the optionals a value does not have, as JSONEncoder does")
    func absentOptionalsAreLeftOut() throws {
        let bare: [any WireDescribed & Encodable] = [
            NoteResource(id: NoteID(), path: "a.md", content: nil, hash: "h", rev: 1, size: 0, createdAt: "c", updatedAt: "u", deleted: true),
            BatchOperation(op: .delete, id: NoteID(), ifMatch: 1), BatchResult(id: NoteID(), status: 200),
            LoginRequest(username: "a", password: "p"), PublicationResource(noteId: NoteID(), path: "a.md", createdAt: "c", expiresAt: nil, indexable: false),
            ServerLimits(maxNoteBytes: 1, maxRequestBytes: 2, maxBatchOperations: 3, maxPageSize: 4, requestsPerMinute: 5),
        ]
        for sample in bare {
            #expect(Self.shapeJSON(sample) == Array(try WireJSON.encoder().encode(sample)), "\(type(of: sample))")
        }
    }

    @Test("a shape's OpenAPI schema lists its fields as properties, the required ones as required")
    func schemaListsTheFields() throws {
        let schema = NoteResource.wireShape.openAPISchema
        guard case .object(let properties)? = schema["properties"] else {
            Issue.record("no properties")
            return
        }
        #expect(properties.map(\.key) == NoteResource.wireShape.fields.map(\.name))
        #expect(schema["required"] == .array(NoteResource.wireShape.fields.filter(\.isRequired).map { .string($0.name) }))
        #expect(schema["properties"]?["media_type"]?["type"] == "string")
        #expect(schema["properties"]?["rev"]?["format"] == "int64")
        #expect(BatchResult.wireShape.openAPISchema["properties"]?["note"]?["allOf"] == [NoteResource.openAPISchema])
    }

    @Test("a member sent twice is left to JSONDecoder, in every hand-read shape")
    func duplicateMembersAreRefused() {
        let id = NoteID()
        let note = #"{"id": "\#(id)", "id": "\#(id)", "path": "a.md", "hash": "h", "rev": 1, "size": 1, "created_at": "c", "updated_at": "u", "deleted": false}"#
        #expect(WireJSONReading.decode(NoteResource.self, from: Data(note.utf8)) == nil)
        #expect(WireJSONReading.decode(ContentMissingRequest.self, from: Data(#"{"hashes": [], "hashes": ["a"]}"#.utf8)) == nil)
        #expect(WireJSONReading.decode(ContentMissingRequest.self, from: Data(#"{"hashes": ["a"]}"#.utf8)) == ContentMissingRequest(hashes: ["a"]))
    }
}
