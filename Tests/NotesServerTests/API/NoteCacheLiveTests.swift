import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `GET /v1/notes/{id}` answers a note read again from memory (`NoteCache`, `TokenCheckCache`).
/// On one server, on either backend, that must never show: every write is read back by the very
/// next GET, a kept note never reaches another account, a token revoked through the server is
/// refused at its next GET, and the cached answer is the uncached one byte for byte.
@Suite("Notes API: a note read again from the server's cache")
struct NoteCacheLiveTests {
    @Test("a note read again answers the same status, body, ETag and type as its first read, and 304 to its ETag")
    func repeatedReadAnswersTheSameBytes() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("a.md", "# A\n\nsome text\n")
            let first = try await api.send("GET", "/v1/notes/\(note.id)")
            let again = try await api.send("GET", "/v1/notes/\(note.id)")
            #expect(first.status == 200 && again.status == 200)
            #expect(again.body == first.body)
            #expect(again.header("ETag") == first.header("ETag") && again.header("Content-Type") == first.header("Content-Type"))
            let markdown = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["Accept": "text/markdown"])
            #expect(markdown.text == "# A\n\nsome text\n" && markdown.header("Content-Type")?.hasPrefix("text/markdown") == true)
            let unchanged = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["If-None-Match": try #require(first.header("ETag"))])
            #expect(unchanged.status == 304)
        }
    }

    @Test("every kind of write is seen by the next GET on the same server: update, rename, batch, delete, restore, purge")
    func everyWriteIsReadBackAtOnce() async throws {
        try await LiveServer.with { _, api in
            var note = try await api.create("a.md", "one")
            try await Self.expectRead(api, note.id, content: "one", rev: note.rev)
            try await Self.expectRead(api, note.id, content: "one", rev: note.rev)

            note = try await api.update(note, content: "two")
            try await Self.expectRead(api, note.id, content: "two", rev: note.rev)
            note = try await api.update(note, path: "renamed.md", content: "two")
            let renamed = try await api.send("GET", "/v1/notes/\(note.id)")
            #expect(try renamed.decode(NoteResource.self).path == "renamed.md")

            let batch = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: note.id, path: "renamed.md", content: "three", ifMatch: note.rev),
            ]))
            #expect(batch.status == 200, "\(batch.text)")
            let afterBatch = try await api.send("GET", "/v1/notes/\(note.id)")
            note = try afterBatch.decode(NoteResource.self)
            #expect(note.content == "three")

            let tombstone = try await api.delete(note)
            #expect(try await api.send("GET", "/v1/notes/\(note.id)").errorCode == "note_deleted")

            let restore = try await api.put(note.id, path: "renamed.md", content: "four", headers: ["If-Match": "\"\(tombstone.rev)\""])
            #expect(restore.status == 200 || restore.status == 201, "\(restore.text)")
            let restored = try restore.decode(NoteResource.self)
            try await Self.expectRead(api, note.id, content: "four", rev: restored.rev)
            try await Self.expectRead(api, note.id, content: "four", rev: restored.rev)

            let purge = try await api.send("POST", "/v1/notes/\(note.id)/purge", headers: ["If-Match": "\"\(restored.rev)\""])
            #expect(purge.status == 200, "\(purge.text)")
            #expect(try await api.send("GET", "/v1/notes/\(note.id)").status == 404)
        }
    }

    @Test("a note kept for its owner is never given to another account asking for the same id")
    func keptNoteStaysWithItsOwner() async throws {
        try await LiveServer.with { server, alice in
            let note = try await alice.create("mine.md", "alice's secret")
            try await Self.expectRead(alice, note.id, content: "alice's secret", rev: note.rev)
            try await Self.expectRead(alice, note.id, content: "alice's secret", rev: note.rev)
            try await server.addUser("bob", password: TestAccount.password)
            let bob = try await TestAPIClient(baseURL: server.baseURL).signedIn("bob", password: TestAccount.password)
            let asked = try await bob.send("GET", "/v1/notes/\(note.id)")
            #expect(asked.status == 404 && !asked.text.contains("secret"))
        }
    }

    @Test("the JSON answer kept with a note is replaced by every write: the next GETs send the new revision, never to another account")
    func keptAnswerFollowsEveryWrite() async throws {
        try await LiveServer.with { server, alice in
            var note = try await alice.create("a.md", "one")
            var last = Data()
            for content in ["two", "three"] {
                // The first read keeps the note with its encoded answer; the second is sent from it.
                let first = try await alice.send("GET", "/v1/notes/\(note.id)")
                let kept = try await alice.send("GET", "/v1/notes/\(note.id)")
                #expect(first.status == 200 && kept.body == first.body)
                let put = try await alice.put(note.id, path: "a.md", content: content, headers: ["If-Match": "\"\(note.rev)\""])
                #expect(put.status == 200, "\(put.text)")
                let written = try put.decode(NoteResource.self)
                let next = try await alice.send("GET", "/v1/notes/\(note.id)")
                let again = try await alice.send("GET", "/v1/notes/\(note.id)")
                #expect(next.body != kept.body && again.body == next.body, "\(next.text)")
                note = try again.decode(NoteResource.self)
                #expect(note.content == content && note.rev == written.rev && note.hash == written.hash && note.updatedAt == written.updatedAt)
                #expect(again.header("ETag") == "\"\(written.rev)\"")
                last = again.body
            }
            try await server.addUser("bob", password: TestAccount.password)
            let bob = try await TestAPIClient(baseURL: server.baseURL).signedIn("bob", password: TestAccount.password)
            let asked = try await bob.send("GET", "/v1/notes/\(note.id)")
            #expect(asked.status == 404 && asked.body != last && !asked.text.contains("three"))
        }
    }

    @Test("a personal token revoked, or a session signed out, through the server is refused by its next GET")
    func revocationThroughTheServerIsImmediate() async throws {
        try await LiveServer.with { server, api in
            let note = try await api.create("a.md", "text")
            let personal = try await api.createToken("script", scope: .read, using: try #require(api.token))
            let secret: String = try #require(personal.token)
            let script = TestAPIClient(baseURL: server.baseURL, token: secret)
            try await Self.expectRead(script, note.id, content: "text", rev: note.rev)
            try await Self.expectRead(script, note.id, content: "text", rev: note.rev)
            #expect(try await api.send("DELETE", "/v1/tokens/\(personal.id)").status == 204)
            #expect(try await script.send("GET", "/v1/notes/\(note.id)").status == 401)

            let laptop = try await TestAPIClient(baseURL: server.baseURL).signedIn(TestAccount.username, password: TestAccount.password)
            try await Self.expectRead(laptop, note.id, content: "text", rev: note.rev)
            try await Self.expectRead(laptop, note.id, content: "text", rev: note.rev)
            #expect(try await laptop.send("POST", "/v1/auth/logout").status == 204)
            #expect(try await laptop.send("GET", "/v1/notes/\(note.id)").status == 401)
        }
    }

    @Test("with --no-cache the server answers notes and their changes just the same")
    func withoutTheCache() async throws {
        try await LiveServer.with(["--no-cache"]) { _, api in
            var note = try await api.create("a.md", "one")
            try await Self.expectRead(api, note.id, content: "one", rev: note.rev)
            note = try await api.update(note, content: "two")
            try await Self.expectRead(api, note.id, content: "two", rev: note.rev)
        }
    }

    /// GETs note `id` and expects it live with `content` at `rev`, ETag included.
    static func expectRead(_ api: TestAPIClient, _ id: NoteID, content: String, rev: Int64,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await api.send("GET", "/v1/notes/\(id)")
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        guard response.status == 200 else { return }
        let note = try response.decode(NoteResource.self)
        #expect(note.content == content && note.rev == rev && !note.deleted, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.header("ETag") == "\"\(rev)\"", sourceLocation: sourceLocation)
    }
}
