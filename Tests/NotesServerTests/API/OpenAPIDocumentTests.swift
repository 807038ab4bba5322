import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The published OpenAPI document is valid, complete and agrees with the routes and wire types.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

    static func document() throws -> JSONValue { try JSONValue.parse(Data(OpenAPIDocument.json.utf8)) }

    /// The real application's route table, paths written the OpenAPI way (`:id` → `{id}`).
    static func routes() throws -> [(method: String, path: String, access: Router.Access)] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ServerConfiguration()
        configuration.databasePath = directory.appending("notes.sqlite").path
        let app = try buildApplication(configuration, log: { _ in })
        defer { try? app.database.close() }
        return app.router.routeTable.map { route in
            let segments = route.pattern.split(separator: "/").map { $0.hasPrefix(":") || $0.hasPrefix("*") ? "{\($0.dropFirst())}" : String($0) }
            return (route.method, "/" + segments.joined(separator: "/"), route.access)
        }
    }

    @Test func documentIsValidOpenAPI303WithEveryReferenceResolved() throws {
        let document = try Self.document()
        #expect(document["openapi"] == .string("3.0.3"))
        #expect(document["info"]?["title"]?.string != nil && document["info"]?["version"]?.string != nil)
        #expect(document["components"]?["securitySchemes"]?["bearerAuth"]?["scheme"] == .string("bearer"))
        let checker = SchemaChecker(document: document)
        var references: [String] = []
        func collect(_ node: JSONValue) {
            switch node {
            case .object(let fields):
                if let reference = fields["$ref"]?.string { references.append(reference) }
                fields.values.forEach(collect)
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(document)
        #expect(references.count > 100)
        for reference in Set(references) { #expect(checker.resolve(reference) != nil, "\(reference)") }

        var operationIDs: [String] = []
        for (path, item) in try #require(document["paths"]?.object) {
            #expect(path.hasPrefix("/"))
            let templated = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                operationIDs.append(operation["operationId"]?.string ?? "")
                let responses = try #require(operation["responses"]?.object, "\(method) \(path)")
                #expect(responses.keys.allSatisfy { $0 == "default" || (Int($0).map { (100...599).contains($0) } ?? false) })
                #expect(responses["default"] != nil, "\(method) \(path)")
                let parameters = ((item["parameters"]?.array ?? []) + (operation["parameters"]?.array ?? [])).map { parameter in
                    parameter["$ref"]?.string.flatMap(checker.resolve) ?? parameter
                }
                let pathNames = parameters.filter { $0["in"] == .string("path") }.compactMap { $0["name"]?.string }
                #expect(Set(pathNames) == Set(templated), "\(method) \(path)")
                let open = operation["security"] == .array([])
                if !open { #expect(responses["401"] != nil, "\(method) \(path) needs 401") }
            }
        }
        #expect(operationIDs.allSatisfy { !$0.isEmpty })
        #expect(Set(operationIDs).count == operationIDs.count, "operationIds are unique")
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws {
        let routed = Set(try Self.routes().map { "\($0.method) \($0.path)" })
        #expect(routed.contains("PUT /v1/notes/{id}"))
        var documented: Set<String> = []
        for (path, item) in try #require(try Self.document()["paths"]?.object) {
            for method in Self.methods where item[method] != nil { documented.insert("\(method.uppercased()) \(path)") }
        }
        #expect(routed.subtracting(documented).sorted() == [], "routed but not documented")
        #expect(documented.subtracting(routed).sorted() == [], "documented but not routed")
    }

    /// The answers the server gives before or around any handler: every operation can get them,
    /// so every operation must list them (schemathesis and clients trust the list).
    @Test func everyOperationListsTheStatusesItsRouteCanAnswer() throws {
        let paths = try #require(try Self.document()["paths"])
        for route in try Self.routes() {
            let path = route.path
            let label = "\(route.method) \(path)"
            let operation = try #require(paths[path]?[route.method.lowercased()], "\(label)")
            let statuses = Set(operation["responses"]?.object?.keys.map { $0 } ?? [])
            // Bad query or URL (400), a body over the limit (413), the per-address rate (429).
            #expect(statuses.isSuperset(of: ["400", "413", "429", "default"]), "\(label) lists \(statuses.sorted())")
            switch route.access {
            case .open:
                #expect(operation["security"] == .array([]), "\(label) needs no token")
            case .read:
                #expect(operation["security"] == nil && statuses.contains("401"), "\(label) needs a token")
            case .write:
                #expect(operation["security"] == nil && statuses.isSuperset(of: ["401", "403"]), "\(label) needs a write token")
            }
        }
        // Only sign-in is queued for slow work, so only it can be busy or meet a draining server.
        #expect(paths["/v1/auth/login"]?["post"]?["responses"]?["503"] != nil)
        // Every write can meet a full (507) or unwritable (503) database.
        for route in try Self.routes() where route.method != "GET" && (route.access == .write || route.path.hasPrefix("/v1/auth/")) {
            let responses = paths[route.path]?[route.method.lowercased()]?["responses"]
            #expect(responses?["503"] != nil && responses?["507"] != nil, "\(route.method) \(route.path)")
        }
    }

    @Test func schemasDescribeEveryWireTypeFieldForField() throws {
        let checker = SchemaChecker(document: try Self.document())
        let id = NoteID()
        let time = "2026-11-29T17:30:00.123Z"
        let note = NoteResource(id: id, path: "a.md", content: "x", hash: SHA256.hex(of: "x"), rev: 3, size: 1,
                                createdAt: time, updatedAt: time, deleted: false, kind: .note, mediaType: "text/markdown")
        let user = UserResource(id: 1, username: "alice", createdAt: time)
        let token = PersonalTokenResource(id: "tok", name: "ci", scope: .write, createdAt: time, expiresAt: time, lastUsedAt: time, token: "npt_x")
        let operation = BatchOperation(op: .put, id: id, path: "a.md", content: "x", ifMatch: 2, ifNoneMatch: "*",
                                       kind: .attachment, hash: note.hash)
        let result = BatchResult(id: id, status: 412, note: note, error: .init(code: "precondition_failed", message: "Stale."))
        let trashEntry = TrashEntry(id: id, path: "a.md", rev: 4, lastRev: 3, size: 1, deletedAt: time, purgeAt: time)
        let samples: [(String, any Encodable)] = [
            ("Note", note), ("PutNoteRequest", PutNoteRequest(path: "a.md", content: "x")),
            ("NoteListPage", NoteListPage(notes: [note], nextCursor: "a.md")),
            ("ChangesPage", ChangesPage(changes: [note], cursor: "3", hasMore: true, userId: 1)),
            ("Revision", RevisionResource(id: id, rev: 3, path: "a.md", hash: note.hash, size: 1, deleted: false, createdAt: time, content: "x", device: "laptop",
                                              kind: .attachment, mediaType: "image/png", author: "ada")),
            ("SearchHit", SearchResults.Hit(id: id, path: "a.md", snippet: "**x**", rev: 3)),
            ("BatchOperation", operation), ("BatchResult", result),
            ("ServerLimits", ServerLimits(maxNoteBytes: 1, maxRequestBytes: 2, maxBatchOperations: 3, maxPageSize: 4, requestsPerMinute: 5,
                                          maxPageBytes: 6, maxUnauthenticatedRequestBytes: 7, maxWaitSeconds: 8, maxWaitersPerUser: 9, maxWaiters: 10,
                                          maxAttachmentBytes: 11, uploadChunkBytes: 12, quotaBytes: 13, maxContentBatchBytes: 14)),
            ("LoginRequest", LoginRequest(username: "a", password: "p", device: "laptop", replacesRefreshToken: "nrt_x")),
            ("RefreshRequest", RefreshRequest(refreshToken: "nrt_x")),
            ("TokenResponse", TokenResponse(accessToken: "nat_x", expiresIn: 3600, refreshToken: "nrt_x", user: user)),
            ("User", user), ("CreateTokenRequest", CreateTokenRequest(name: "ci", scope: .read, expiresIn: 60)),
            ("PersonalToken", token), ("Error", APIErrorBody(code: "not_found", message: "Nothing here.")),
            ("StaleNote", StaleNoteBody(error: .init(code: "precondition_failed", message: "Stale."), note: note)),
            ("TrashEntry", trashEntry), ("TrashPage", TrashPage(notes: [trashEntry], nextCursor: "3")),
            ("PurgeResult", PurgeResult(id: id, path: "a.md", purgedRevisions: 2, rev: 4)),
            ("ContentMissingRequest", ContentMissingRequest(hashes: [note.hash])),
            ("ContentMissingResponse", ContentMissingResponse(missing: [note.hash])),
            ("UploadRequest", UploadRequest(hash: note.hash, size: 9)),
            ("UploadState", UploadState(hash: note.hash, size: 9, chunkSize: 8, received: [1])),
            ("StoredContent", StoredContent(hash: note.hash, size: 9)),
            ("ContentBatchResult", ContentBatchResult(hash: note.hash, size: 9, status: .contentMismatch)),
            ("ContentBatchResponse", ContentBatchResponse(contents: [ContentBatchResult(hash: note.hash, size: 9, status: .created)])),
            ("Space", SpaceResource(id: 2, name: "Team", owner: "ada", role: .editor, personal: false, createdAt: time, deletedAt: time)),
            ("SpaceNameRequest", SpaceNameRequest(name: "Team")),
            ("SpaceMember", SpaceMemberResource(username: "bob", role: .viewer, addedAt: time)),
            ("SpaceMemberRequest", SpaceMemberRequest(username: "bob", role: .viewer)),
        ]
        for (name, sample) in samples {
            let encoded = try JSONValue.parse(try WireJSON.encoder().encode(sample))
            let schema = try #require(checker.resolve("#/components/schemas/\(name)"), "\(name)")
            #expect(checker.problems(encoded, against: schema) == [], "\(name)")
            // Every optional is set in these samples, so the schema must list exactly the encoded keys.
            let declared = Set(schema["properties"]?.object?.keys.map { $0 } ?? [])
            #expect(declared == Set(encoded.object?.keys.map { $0 } ?? []), "\(name)")
        }
        let lists: [(String, any Encodable)] = [
            ("RevisionList", RevisionList(revisions: [])), ("SearchResults", SearchResults(results: [])),
            ("BatchRequest", BatchRequest(operations: [operation])), ("BatchResponse", BatchResponse(results: [result])),
            ("BatchResponse", BatchResponse(results: [result], cursorBefore: "3", cursorAfter: "5")),
            ("PersonalTokenList", PersonalTokenList(tokens: [token])),
        ]
        for (name, sample) in lists {
            let encoded = try JSONValue.parse(try WireJSON.encoder().encode(sample))
            #expect(checker.problems(encoded, against: .object(["$ref": .string("#/components/schemas/\(name)")])) == [], "\(name)")
        }
    }

    /// The fields of a wire type's shape, by the name of its schema.
    static func shapeFields<Wire: WireDescribed>(_ type: Wire.Type) -> (name: String, fields: [String], required: [String]) {
        (Wire.wireShape.name, Wire.wireShape.fields.map(\.name), Wire.wireShape.fields.filter(\.isRequired).map(\.name))
    }

    @Test("each wire type's schema in the served document lists exactly the fields of its shape, the required ones as required")
    func wireSchemasAreTheShapes() throws {
        let schemas = try #require(try Self.document()["components"]?["schemas"]?.object)
        #expect(OpenAPIDocument.wireTypes.count > 30)
        for type in OpenAPIDocument.wireTypes {
            let shape = Self.shapeFields(type)
            let schema = try #require(schemas[shape.name], "\(shape.name)")
            #expect(Set(schema["properties"]?.object?.keys.map { $0 } ?? []) == Set(shape.fields), "\(shape.name)")
            #expect((schema["required"]?.array ?? []).compactMap(\.string) == shape.required, "\(shape.name)")
        }
    }

    @Test func checkerCatchesRenamedMissingAndMistypedFields() throws {
        let checker = SchemaChecker(document: try Self.document())
        let schema = JSONValue.object(["$ref": .string("#/components/schemas/ChangesPage")])
        let good = try JSONValue.parse(Data(#"{"changes": [], "cursor": "1", "has_more": false}"#.utf8))
        #expect(checker.problems(good, against: schema) == [])
        let renamed = try JSONValue.parse(Data(#"{"changes": [], "cursor": "1", "hasMore": false}"#.utf8))
        #expect(checker.problems(renamed, against: schema).count == 2)
        let mistyped = try JSONValue.parse(Data(#"{"changes": [{"id": 1}], "cursor": 1, "has_more": "no"}"#.utf8))
        #expect(checker.problems(mistyped, against: schema).count >= 3)
        let nulled = try JSONValue.parse(Data(#"{"changes": null, "cursor": "1", "has_more": false}"#.utf8))
        #expect(checker.problems(nulled, against: schema).count == 1)
    }
}
