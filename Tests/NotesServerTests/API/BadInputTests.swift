import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Bad input of every kind gets a 4xx with the JSON error body, never a 500, and the server
/// keeps answering afterwards.
@Suite("Notes API: bad input")
struct BadInputTests {
    /// The server's log once it holds the line of the test's last request (`fragment`): the log
    /// is written in batches, so what the earlier requests logged is all there by then.
    private static func settledLog(_ server: TestServer, through fragment: String) async throws -> String {
        #expect(try await waitUntil { server.log.contains(fragment) }, "the log has the last request's line")
        return server.log
    }

    @Test func malformedJSONInvalidUTF8AndWrongFieldTypesAre400() async throws {
        try await LiveServer.with { server, api in
            let bodies: [(String, [UInt8])] = [
                ("truncated", Array(#"{"path": "a.md", "#.utf8)),
                ("empty", []),
                ("array", Array("[]".utf8)),
                ("null", Array("null".utf8)),
                ("invalid UTF-8 in content", Array(#"{"path":"a.md","content":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)),
                ("invalid UTF-8 in path", Array(#"{"path":""#.utf8) + [0xC3, 0x28] + Array(#".md","content":"x"}"#.utf8)),
                ("lone surrogate", Array(#"{"path":"a.md","content":"\ud800"}"#.utf8)),
                ("number path", Array(#"{"path": 5, "content": "x"}"#.utf8)),
                ("null content", Array(#"{"path": "a.md", "content": null}"#.utf8)),
                ("missing content", Array(#"{"path": "a.md"}"#.utf8)),
                ("content object", Array(#"{"path": "a.md", "content": {"text": "x"}}"#.utf8)),
            ]
            for (label, body) in bodies {
                let response = try await api.send("PUT", "/v1/notes/\(NoteID())", headers: ["If-None-Match": "*"], body: Data(body))
                #expect(response.status == 400, "\(label): \(response.text)")
                #expect(response.errorCode == "invalid_json", "\(label)")
            }
            let typed = try await api.send("PUT", "/v1/notes/\(NoteID())", headers: ["If-None-Match": "*"],
                                           body: Data(#"{"path": 5, "content": "x"}"#.utf8))
            #expect(typed.text.contains("path"), "the message names the field")
            #expect(try await api.send("GET", "/v1/notes").decode(NoteListPage.self).notes.isEmpty)
            #expect(!(try await Self.settledLog(server, through: "GET /v1/notes 200 ")).contains("internal error"))
        }
    }

    @Test func unknownFieldsAreIgnored() async throws {
        try await LiveServer.with { _, api in
            let body = #"{"path": "a.md", "content": "x", "colour": "red", "rev": 99, "extra": {"nested": [1, 2]}}"#
            let response = try await api.send("PUT", "/v1/notes/\(NoteID())", headers: ["If-None-Match": "*"], body: Data(body.utf8))
            #expect(response.status == 201)
            #expect(try response.decode(NoteResource.self).rev == 1)
        }
    }

    @Test func badNoteIdsAre400AndUppercaseIdsAreTheSameNote() async throws {
        try await LiveServer.with { _, api in
            for bad in ["not-a-uuid", "12345", "0f8fad5bd9cb469fa16570867728950e", "0f8fad5b-d9cb-469f-a165-70867728950ex", "%20"] {
                for method in ["GET", "PUT", "DELETE"] {
                    let response = try await api.send(method, "/v1/notes/\(bad)", headers: ["If-Match": "\"1\""],
                                                      body: method == "PUT" ? Data(#"{"path":"a.md","content":""}"#.utf8) : nil)
                    #expect(response.status == 400, "\(method) \(bad)")
                    #expect(response.errorCode == "invalid_id", "\(method) \(bad)")
                }
            }
            let note = try await api.create("a.md", "x")
            let upper = try await api.send("GET", "/v1/notes/\(note.id.value.uppercased())")
            #expect(upper.status == 200)
            #expect(try upper.decode(NoteResource.self).id == note.id)
        }
    }

    @Test func hostilePathsAreRefusedAndNothingIsStored() async throws {
        let hostile = ["../x.md", "/abs.md", "a\\b.md", ".notes/x.md", "a/../b.md", "a/./b.md", "a//b.md", "dir/", "a\u{0}.md",
                       "x\n.md", "notes.txt", "notes", "", ".md", "dir/.md", ".hidden.md", "dir/.git/x.md",
                       String(repeating: "a", count: 300) + ".md", String(repeating: "ab/", count: 400) + "x.md"]
        try await LiveServer.with { server, api in
            for path in hostile {
                let response = try await api.put(NoteID(), path: path, content: "x", headers: ["If-None-Match": "*"])
                #expect(response.status == 400, "\(path.debugDescription)")
                #expect(response.errorCode == "invalid_path", "\(path.debugDescription)")
            }
            #expect(try await api.send("GET", "/v1/notes").decode(NoteListPage.self).notes.isEmpty)
            #expect(try await api.send("GET", "/v1/changes").decode(ChangesPage.self).changes.isEmpty)
            #expect(!(try await Self.settledLog(server, through: "GET /v1/changes 200 ")).contains("internal error"))
        }
    }

    @Test func oversizedNoteIs413AndTheServerStillAnswers() async throws {
        try await LiveServer.with { _, api in
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            #expect(limits.maxNoteBytes == 10 * 1024 * 1024)
            #expect(limits.maxRequestBytes == 32 * 1024 * 1024)
            let big = String(repeating: "0123456789", count: 1_100_000)
            let response = try await api.put(NoteID(), path: "big.md", content: big, headers: ["If-None-Match": "*"])
            #expect(response.status == 413)
            #expect(response.errorCode == "note_too_large")
            #expect(try await api.send("GET", "/healthz").status == 200)
            #expect(try await api.send("GET", "/v1/changes").decode(ChangesPage.self).changes.isEmpty)
        }
    }

    @Test func requestOverTheSizeLimitIsRefusedBeforeItsBodyIsSent() async throws {
        try await LiveServer.with { server, api in
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            // Only the head is sent: a 413 can arrive only if the server answers without the body.
            let head = "PUT /v1/notes/\(NoteID()) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(api.token ?? "")\r\n"
                + "If-None-Match: *\r\nContent-Type: application/json\r\nContent-Length: \(limits.maxRequestBytes + 1)\r\n\r\n"
            let response = try await RawHTTP.exchange(port: UInt16(server.port), head)
            #expect(response.status == 413)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: Data(response.body)).error.code == "payload_too_large")
            #expect(try await api.send("GET", "/healthz").status == 200)
        }
    }

    @Test func wrongMethodsAre405WithAllowAndUnknownRoutesAre404() async throws {
        try await LiveServer.with { server, api in
            let id = NoteID()
            let wrong: [(String, String, [String])] = [
                ("POST", "/v1/notes", ["GET", "HEAD"]), ("PATCH", "/v1/notes/\(id)", ["GET", "PUT", "DELETE", "HEAD"]),
                ("DELETE", "/healthz", ["GET", "HEAD"]), ("GET", "/v1/batch", ["POST"]), ("PUT", "/v1/changes", ["GET", "HEAD"]),
                ("POST", "/v1/notes/\(id)/revisions", ["GET", "HEAD"]), ("GET", "/v1/auth/login", ["POST"]),
            ]
            for (method, path, allowed) in wrong {
                let response = try await api.send(method, path)
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.errorCode == "method_not_allowed", "\(method) \(path)")
                let allow = Set((response.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(allow == Set(allowed), "\(method) \(path)")
            }
            for path in ["/v1", "/v1/nope", "/v1/notes/\(id)/extra", "/v1/notes/", "/v2/notes", "/v1//notes", "/healthz/"] {
                let response = try await api.send("GET", path)
                #expect(response.status == 404, "\(path)")
                #expect(response.isErrorBody, "\(path)")
            }
            #expect(!(try await Self.settledLog(server, through: "GET /healthz/ 404 ")).contains("internal error"))
        }
    }

    @Test func headAnswersLikeGetWithoutABody() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("a.md", "body")
            let head = try await api.send("HEAD", "/v1/notes/\(note.id)")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("ETag") == "\"\(note.rev)\"")
            #expect(try await api.send("HEAD", "/healthz").status == 200)
            #expect(try await api.send("HEAD", "/v1/nope").status == 404)
            #expect(try await api.send("HEAD", "/v1/notes/\(NoteID())").status == 404)
        }
    }

    @Test func missingOrUnknownTokensAre401WithABearerChallenge() async throws {
        try await LiveServer.with { _, api in
            var anonymous = api
            anonymous.token = nil
            let paths = ["/v1/notes", "/v1/notes/\(NoteID())", "/v1/changes", "/v1/search?q=x", "/v1/notes/\(NoteID())/revisions"]
            for path in paths {
                let response = try await anonymous.send("GET", path)
                #expect(response.status == 401, "\(path)")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer realm=\"notes\"") == true, "\(path)")
                #expect(response.isErrorBody)
            }
            var forged = api
            forged.token = "nat_" + String(repeating: "A", count: 43)
            let response = try await forged.send("POST", "/v1/batch", json: BatchRequest(operations: []))
            #expect(response.status == 401)
            #expect(response.errorCode == "invalid_token")
            #expect(response.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
        }
    }
}
