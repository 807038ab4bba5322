import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Real answers of the live server match what the OpenAPI document says about them.
@Suite("OpenAPI document: live answers")
struct OpenAPILiveTests {
    /// Checks one real answer against the documented response for `method path status`:
    /// the status is listed, the documented headers are present, the body fits the schema.
    struct Conformance {
        let document: JSONValue
        var checker: SchemaChecker { SchemaChecker(document: document) }

        func check(_ response: TestAPIResponse, _ method: String, _ path: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
            let label = "\(method) \(path) \(response.status)"
            guard let operation = document["paths"]?[path]?[method.lowercased()] else {
                Issue.record("\(method) \(path) is not documented", sourceLocation: sourceLocation)
                return
            }
            guard var documented = operation["responses"]?[String(response.status)] else {
                Issue.record("\(label) is not documented: \(response.text)", sourceLocation: sourceLocation)
                return
            }
            if let reference = documented["$ref"]?.string, let target = checker.resolve(reference) { documented = target }
            for name in documented["headers"]?.object?.keys ?? [:].keys {
                #expect(response.header(name) != nil, "\(label) lacks \(name)", sourceLocation: sourceLocation)
            }
            guard let content = documented["content"]?.object else {
                #expect(response.body.isEmpty, "\(label) has an undocumented body", sourceLocation: sourceLocation)
                return
            }
            let mediaType = (response.header("Content-Type") ?? "").split(separator: ";").first.map(String.init) ?? ""
            guard let schema = content[mediaType]?["schema"] else {
                Issue.record("\(label) answers \(mediaType), not documented", sourceLocation: sourceLocation)
                return
            }
            if mediaType == "application/json" {
                guard let body = try? JSONValue.parse(response.body) else {
                    Issue.record("\(label) body is not JSON", sourceLocation: sourceLocation)
                    return
                }
                #expect(checker.problems(body, against: schema) == [], "\(label)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func liveAnswersMatchTheDocumentedSchemas() async throws {
        try await withAPIServer { _, api in
            let spec = Conformance(document: try JSONValue.parse(Data(OpenAPIDocument.json.utf8)))
            var anonymous = api
            anonymous.token = nil

            spec.check(try await anonymous.send("GET", "/healthz"), "GET", "/healthz")
            spec.check(try await anonymous.send("GET", "/v1/limits"), "GET", "/v1/limits")
            let served = try await anonymous.send("GET", "/v1/openapi.json")
            spec.check(served, "GET", "/v1/openapi.json")
            #expect(try JSONValue.parse(served.body) == spec.document)
            spec.check(try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: "alice", password: testPassword)),
                       "POST", "/v1/auth/login")
            spec.check(try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: "alice", password: "wrong")),
                       "POST", "/v1/auth/login")
            spec.check(try await anonymous.send("POST", "/v1/auth/login", body: Data("{".utf8)), "POST", "/v1/auth/login")
            spec.check(try await anonymous.send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: "nrt_nope")),
                       "POST", "/v1/auth/refresh")
            spec.check(try await api.send("GET", "/v1/me"), "GET", "/v1/me")
            spec.check(try await anonymous.send("GET", "/v1/notes"), "GET", "/v1/notes")

            let id = NoteID()
            let create = ["If-None-Match": "*"]
            spec.check(try await api.put(id, path: "a.md", content: "alpha words", headers: create), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(id, path: "a.md", content: "alpha words", headers: create), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(id, path: "a.md", content: "other", headers: create), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(id, path: "a.md", content: "other", headers: [:]), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(NoteID(), path: "A.md", content: "clash", headers: create), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(NoteID(), path: "../a.md", content: "x", headers: create), "PUT", "/v1/notes/{id}")
            spec.check(try await api.put(NoteID(), path: "b.md", content: "x", headers: ["If-Match": "\"1\""]), "PUT", "/v1/notes/{id}")

            let got = try await api.send("GET", "/v1/notes/\(id)")
            spec.check(got, "GET", "/v1/notes/{id}")
            let note = try got.decode(NoteResource.self)
            spec.check(try await api.send("GET", "/v1/notes/\(id)", headers: ["Accept": "text/markdown"]), "GET", "/v1/notes/{id}")
            spec.check(try await api.send("GET", "/v1/notes/\(id)", headers: ["If-None-Match": "\"\(note.rev)\""]), "GET", "/v1/notes/{id}")
            spec.check(try await api.send("GET", "/v1/notes/\(NoteID())"), "GET", "/v1/notes/{id}")
            spec.check(try await api.send("GET", "/v1/notes/nope"), "GET", "/v1/notes/{id}")
            spec.check(try await api.send("GET", "/v1/notes", query: [("limit", "1")]), "GET", "/v1/notes")
            spec.check(try await api.send("GET", "/v1/notes/\(id)/html"), "GET", "/v1/notes/{id}/html")
            spec.check(try await api.send("GET", "/v1/notes/\(id)/revisions"), "GET", "/v1/notes/{id}/revisions")
            spec.check(try await api.send("GET", "/v1/notes/\(id)/revisions/\(note.rev)"), "GET", "/v1/notes/{id}/revisions/{rev}")
            spec.check(try await api.send("GET", "/v1/changes", query: [("include", "content")]), "GET", "/v1/changes")
            spec.check(try await api.send("GET", "/v1/changes", query: [("since", "999")]), "GET", "/v1/changes")
            spec.check(try await api.send("GET", "/v1/search", query: [("q", "alph*")]), "GET", "/v1/search")
            spec.check(try await api.send("GET", "/v1/search"), "GET", "/v1/search")
            let batch = BatchRequest(operations: [
                BatchOperation(op: .put, id: NoteID(), path: "b.md", content: "b", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: id, path: "a.md", content: "stale", ifMatch: note.rev + 9),
            ])
            spec.check(try await api.send("POST", "/v1/batch", json: batch), "POST", "/v1/batch")
            spec.check(try await api.send("DELETE", "/v1/notes/\(id)", headers: ["If-Match": "\"\(note.rev + 9)\""]), "DELETE", "/v1/notes/{id}")
            spec.check(try await api.send("DELETE", "/v1/notes/\(id)"), "DELETE", "/v1/notes/{id}")
            spec.check(try await api.send("DELETE", "/v1/notes/\(id)", headers: ["If-Match": "\"\(note.rev)\""]), "DELETE", "/v1/notes/{id}")
            spec.check(try await api.send("POST", "/v1/auth/logout"), "POST", "/v1/auth/logout")
            spec.check(try await api.send("GET", "/v1/me"), "GET", "/v1/me")
        }
    }
}
