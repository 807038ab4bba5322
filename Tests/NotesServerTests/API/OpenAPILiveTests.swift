import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Real answers of the live server match what the OpenAPI document says about them.
@Suite("OpenAPI document: live answers")
struct OpenAPILiveTests {
    @Test func liveAnswersMatchTheDocumentedSchemas() async throws {
        try await LiveServer.with { _, api in
            let spec = try OpenAPIConformance.published()
            var anonymous = api
            anonymous.token = nil

            spec.check(try await anonymous.send("GET", "/healthz"), "GET", "/healthz")
            spec.check(try await anonymous.send("GET", "/v1/limits"), "GET", "/v1/limits")
            let served = try await anonymous.send("GET", "/v1/openapi.json")
            spec.check(served, "GET", "/v1/openapi.json")
            #expect(try JSONValue.parse(served.body) == spec.document)
            spec.check(try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: TestAccount.username, password: TestAccount.password)),
                       "POST", "/v1/auth/login")
            spec.check(try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: TestAccount.username, password: "wrong")),
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
            let latest = try await api.send("GET", "/v1/changes").decode(ChangesPage.self).cursor
            spec.check(try await api.send("GET", "/v1/changes", query: [("since", latest), ("wait", "1")]), "GET", "/v1/changes")
            spec.check(try await api.send("GET", "/v1/changes", query: [("wait", "61")]), "GET", "/v1/changes")
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
            let trash = try await api.send("GET", "/v1/trash")
            spec.check(trash, "GET", "/v1/trash")
            spec.check(try await api.send("GET", "/v1/trash", query: [("before", "x")]), "GET", "/v1/trash")
            let deletedRev = try #require(try trash.decode(TrashPage.self).notes.first?.rev)
            spec.check(try await api.send("POST", "/v1/notes/\(id)/purge"), "POST", "/v1/notes/{id}/purge")
            spec.check(try await api.send("POST", "/v1/notes/\(id)/purge", headers: ["If-Match": "\"\(deletedRev + 9)\""]), "POST", "/v1/notes/{id}/purge")
            spec.check(try await api.send("POST", "/v1/notes/\(id)/purge", headers: ["If-Match": "\"\(deletedRev)\""]), "POST", "/v1/notes/{id}/purge")
            spec.check(try await api.send("POST", "/v1/notes/\(NoteID())/purge", headers: ["If-Match": "\"1\""]), "POST", "/v1/notes/{id}/purge")
            spec.check(try await api.send("POST", "/v1/auth/logout"), "POST", "/v1/auth/logout")
            spec.check(try await api.send("GET", "/v1/me"), "GET", "/v1/me")
        }
    }
}
