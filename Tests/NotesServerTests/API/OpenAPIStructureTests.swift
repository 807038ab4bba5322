import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// The OpenAPI document is built from shared parts (an operation's access decides its general
/// answers); these facts pin what it says, so a change to the builders cannot quietly drop or
/// add an answer, and its serialisation is valid JSON that reads back as what was built.
@Suite("OpenAPI document: what the shared parts build")
struct OpenAPIStructureTests {
    /// Every operation with the statuses it documents, as the document said when it was one
    /// block of JSON text, before its repeated parts were built from helpers.
    static let operations: [(method: String, path: String, id: String, statuses: String)] = [
        ("get", "/", "home", "200 400 413 429 default"),
        ("get", "/healthz", "health", "200 400 413 429 default"),
        ("get", "/v1/limits", "getLimits", "200 400 413 429 default"),
        ("get", "/v1/openapi.json", "getOpenAPI", "200 400 413 429 default"),
        ("post", "/v1/auth/login", "login", "200 400 401 403 413 429 503 507 default"),
        ("post", "/v1/auth/refresh", "refresh", "200 400 401 413 429 503 507 default"),
        ("post", "/v1/auth/logout", "logout", "204 400 401 413 429 503 507 default"),
        ("get", "/v1/me", "me", "200 400 401 413 429 default"),
        ("get", "/v1/tokens", "listTokens", "200 400 401 403 413 429 default"),
        ("post", "/v1/tokens", "createToken", "201 400 401 403 409 413 429 503 507 default"),
        ("delete", "/v1/tokens/{id}", "revokeToken", "204 400 401 403 404 413 429 503 507 default"),
        ("get", "/v1/notes", "listNotes", "200 400 401 413 429 default"),
        ("get", "/v1/notes/{id}", "getNote", "200 304 400 401 404 413 429 default"),
        ("put", "/v1/notes/{id}", "putNote", "200 201 400 401 403 404 409 412 413 428 429 503 507 default"),
        ("delete", "/v1/notes/{id}", "deleteNote", "200 400 401 403 404 412 413 428 429 503 507 default"),
        ("get", "/v1/notes/{id}/html", "getNoteHTML", "200 400 401 404 413 429 503 default"),
        ("get", "/v1/notes/{id}/revisions", "listRevisions", "200 400 401 404 413 429 default"),
        ("get", "/v1/notes/{id}/revisions/{rev}", "getRevision", "200 400 401 404 413 429 default"),
        ("get", "/v1/changes", "listChanges", "200 400 401 410 413 429 default"),
        ("post", "/v1/batch", "batch", "200 400 401 403 413 429 503 507 default"),
        ("get", "/v1/search", "search", "200 400 401 413 429 default"),
        ("get", "/v1/trash", "listTrash", "200 400 401 413 429 default"),
        ("post", "/v1/notes/{id}/purge", "purgeNote", "200 400 401 403 404 412 413 428 429 503 507 default"),
        ("post", "/v1/notes/{id}/publication", "publishNote", "201 400 401 403 404 413 429 503 507 default"),
        ("delete", "/v1/notes/{id}/publication", "unpublishNote", "204 400 401 403 404 413 429 503 507 default"),
        ("get", "/v1/publications", "listPublications", "200 400 401 413 429 default"),
        ("get", "/p/{token}", "readPublication", "200 400 404 413 429 default"),
        ("get", "/p/{token}/a/{path}", "readPublicationAttachment", "200 400 404 413 429 default"),
        ("get", "/v1/auth/providers", "listSignInProviders", "200 400 413 429 default"),
        ("get", "/auth/cli/start", "startCLISignIn", "302 400 413 429 503 507 default"),
        ("get", "/auth/oidc/start", "startBrowserSignIn", "302 303 400 413 429 503 507 default"),
        ("get", "/auth/oidc/callback", "finishSignIn", "302 303 400 413 429 503 507 default"),
        ("post", "/v1/auth/token", "exchangeSignInCode", "200 400 403 413 429 503 507 default"),
        ("post", "/v1/auth/device", "startDeviceSignIn", "200 400 413 429 503 507 default"),
        ("post", "/v1/content/missing", "contentMissing", "200 400 401 403 413 422 429 503 507 default"),
        ("get", "/v1/content/{hash}", "getContent", "200 206 304 400 401 404 413 416 422 429 default"),
        ("put", "/v1/content/{hash}", "putContent", "200 201 400 401 403 411 413 422 429 503 507 default"),
        ("post", "/v1/content", "putContents", "200 400 401 403 411 413 429 503 507 default"),
        ("post", "/v1/uploads", "openUpload", "200 201 400 401 403 413 422 429 503 507 default"),
        ("get", "/v1/uploads/{hash}", "getUpload", "200 400 401 403 404 413 422 429 default"),
        ("put", "/v1/uploads/{hash}/chunks/{index}", "putChunk", "204 400 401 403 404 413 422 429 503 507 default"),
        ("post", "/v1/uploads/{hash}/complete", "completeUpload", "201 400 401 403 404 409 413 422 429 503 507 default"),
        ("get", "/v1/attachments/{id}", "getAttachment", "200 206 304 400 401 404 413 416 429 default"),
    ]

    static func document() throws -> JSONValue { try JSONValue.parse(Data(OpenAPIDocument.json.utf8)) }

    @Test("every operation documents exactly the statuses it did before the document was built from shared parts")
    func operationsKeepTheirStatuses() throws {
        let paths = try #require(try Self.document()["paths"]?.object)
        var documented: [String] = []
        for (path, item) in paths {
            for (method, _) in item.object ?? [:] where method != "parameters" { documented.append("\(method) \(path)") }
        }
        #expect(documented.sorted() == Self.operations.map { "\($0.method) \($0.path)" }.sorted())
        for operation in Self.operations {
            let node = paths[operation.path]?[operation.method]
            #expect(node?["operationId"]?.string == operation.id)
            let statuses = (node?["responses"]?.object?.keys).map(Array.init) ?? []
            let ordered = statuses.sorted { (Int($0) ?? 1000) < (Int($1) ?? 1000) }.joined(separator: " ")
            #expect(ordered == operation.statuses, "\(operation.id)")
        }
    }

    @Test("general answers are the shared ones; only operations open to anyone drop the bearer requirement")
    func generalAnswersAreShared() throws {
        let document = try Self.document()
        #expect(document["security"] == .array([.object(["bearerAuth": .array([])])]))
        let open: Set = ["home", "health", "getLimits", "getOpenAPI", "login", "refresh", "readPublication",
                         "readPublicationAttachment", "listSignInProviders", "startCLISignIn", "startBrowserSignIn", "finishSignIn",
                         "exchangeSignInCode", "startDeviceSignIn"]
        for (_, item) in try #require(document["paths"]?.object) {
            for (method, operation) in item.object ?? [:] where method != "parameters" {
                let id = operation["operationId"]?.string ?? "?"
                let responses = operation["responses"]
                // Sign-in says more about its 429 (the login throttle) than the shared answer, and
                // published pages answer theirs as HTML.
                if !["login", "readPublication", "readPublicationAttachment"].contains(id) {
                    #expect(responses?["429"]?["$ref"]?.string == "#/components/responses/TooManyRequests", "\(id)")
                }
                #expect(responses?["default"]?["$ref"]?.string == "#/components/responses/Error", "\(id)")
                #expect(responses?["400"] != nil && responses?["413"] != nil, "\(id)")
                #expect((operation["security"] == .array([])) == open.contains(id), "\(id)")
                if !open.contains(id) && id != "createToken" {
                    #expect(responses?["401"]?["$ref"]?.string == "#/components/responses/Unauthorized", "\(id)")
                }
            }
        }
    }

    @Test("the shared components are all there: 44 schemas, 23 parameters, 14 answers, 5 headers")
    func componentsAreComplete() throws {
        let components = try #require(try Self.document()["components"])
        #expect(components["schemas"]?.object?.count == 44)
        #expect(components["parameters"]?.object?.count == 23)
        #expect(components["responses"]?.object?.count == 14)
        #expect(components["headers"]?.object?.count == 5)
        #expect(components["securitySchemes"]?["bearerAuth"]?["scheme"]?.string == "bearer")
    }

    @Test("the served text is the built document: strings with quotes, backslashes and control characters survive")
    func serialisationReadsBack() throws {
        let tricky: OpenAPIValue = ["a\"b": ["x\\y", "line\nbreak\u{1}", 42, true, [], [:]], "é": "ünïcødé"]
        let parsed = try JSONValue.parse(Data(tricky.jsonText.utf8))
        #expect(parsed == .object(["a\"b": .array([.string("x\\y"), .string("line\nbreak\u{1}"), .integer(42), .bool(true),
                                                     .array([]), .object([:])]), "é": .string("ünïcødé")]))
        #expect(OpenAPIDocument.json.split(separator: "\n").allSatisfy { !$0.hasSuffix(" ") })
    }
}
