import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Reading and writing single notes over real HTTP: ETags, preconditions, byte-exact content.
@Suite("Notes API: read and write")
struct NotesReadWriteTests {
    @Test func getCarriesETagAndMatchingIfNoneMatchAnswers304() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("a.md", "# Hello\n")
            let response = try await api.send("GET", "/v1/notes/\(note.id)")
            #expect(response.status == 200)
            #expect(response.header("ETag") == "\"\(note.rev)\"")
            let got = try response.decode(NoteResource.self)
            #expect(got.content == "# Hello\n")
            #expect(got.hash == SHA256.hex(of: "# Hello\n"))
            #expect(got.path == "a.md" && got.rev == note.rev && !got.deleted)

            let unchanged = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["If-None-Match": "\"\(note.rev)\""])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == "\"\(note.rev)\"")
            let anyVersion = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["If-None-Match": "*"])
            #expect(anyVersion.status == 304)
            let otherVersion = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["If-None-Match": "\"\(note.rev + 10)\""])
            #expect(otherVersion.status == 200)
        }
    }

    @Test func markdownAcceptReturnsTheStoredBytesExactly() async throws {
        // CRLF, NUL, an emoji and NFD text (e + combining acute) must all survive untouched.
        let content = "# Title\r\nline two\r\nnul:\u{0}:end 🎉 cafe\u{301}\n"
        try await LiveServer.with { _, api in
            let note = try await api.create("bytes.md", content)
            #expect(note.hash == SHA256.hex(of: content))
            #expect(note.size == content.utf8.count)
            let raw = try await api.send("GET", "/v1/notes/\(note.id)", headers: ["Accept": "text/markdown"])
            #expect(raw.status == 200)
            #expect(raw.header("Content-Type")?.hasPrefix("text/markdown") == true)
            #expect(Array(raw.body) == Array(content.utf8))
            let json = try await api.send("GET", "/v1/notes/\(note.id)")
            let decoded = try json.decode(NoteResource.self)
            #expect(decoded.content.map { Array($0.utf8) } == Array(content.utf8))
        }
    }

    @Test func createWithIfNoneMatchIsIdempotentAndConflictingCreateIs412() async throws {
        try await LiveServer.with { _, api in
            let id = NoteID()
            let first = try await api.put(id, path: "a.md", content: "one", headers: ["If-None-Match": "*"])
            #expect(first.status == 201)
            let created = try first.decode(NoteResource.self)
            #expect(created.id == id)
            #expect(first.header("ETag") == "\"\(created.rev)\"")

            let retried = try await api.put(id, path: "a.md", content: "one", headers: ["If-None-Match": "*"])
            #expect(retried.status == 200)
            #expect(try retried.decode(NoteResource.self).rev == created.rev)

            let different = try await api.put(id, path: "a.md", content: "two", headers: ["If-None-Match": "*"])
            #expect(different.status == 412)
            let body = try different.decode(StaleBody.self)
            #expect(body.error.code == "precondition_failed")
            #expect(body.note?.content == "one")
            #expect(body.note?.rev == created.rev)
        }
    }

    @Test func updateNeedsTheCurrentRevisionAndAPrecondition() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("a.md", "one")
            let updated = try await api.put(note.id, path: "a.md", content: "two", headers: ["If-Match": "\"\(note.rev)\""])
            #expect(updated.status == 200)
            let current = try updated.decode(NoteResource.self)
            #expect(current.rev > note.rev)
            #expect(updated.header("ETag") == "\"\(current.rev)\"")

            let stale = try await api.put(note.id, path: "a.md", content: "three", headers: ["If-Match": "\"\(note.rev)\""])
            #expect(stale.status == 412)
            let body = try stale.decode(StaleBody.self)
            #expect(body.error.code == "precondition_failed")
            #expect(body.note?.rev == current.rev)
            #expect(body.note?.content == "two")

            let unguarded = try await api.put(note.id, path: "a.md", content: "four", headers: [:])
            #expect(unguarded.status == 428)
            #expect(unguarded.errorCode == "precondition_required")
            let both = try await api.put(note.id, path: "a.md", content: "four", headers: ["If-Match": "\"\(current.rev)\"", "If-None-Match": "*"])
            #expect(both.status == 400)
            let garbage = try await api.put(note.id, path: "a.md", content: "four", headers: ["If-Match": "yesterday"])
            #expect(garbage.status == 400)
            #expect(garbage.errorCode == "invalid_precondition")
            let missing = try await api.put(NoteID(), path: "b.md", content: "x", headers: ["If-Match": "\"1\""])
            #expect(missing.status == 404)
        }
    }

    @Test func renameKeepsTheIdAndTheHistory() async throws {
        try await LiveServer.with { _, api in
            let note = try await api.create("old/a.md", "text")
            let renamed = try await api.update(note, path: "new/b.md", content: "text")
            #expect(renamed.id == note.id && renamed.path == "new/b.md" && renamed.hash == note.hash)
            let list = try await api.send("GET", "/v1/notes").decode(NoteListPage.self)
            #expect(list.notes.map(\.path) == ["new/b.md"])
            let history = try await api.send("GET", "/v1/notes/\(note.id)/revisions").decode(RevisionList.self)
            #expect(history.revisions.map(\.path) == ["new/b.md", "old/a.md"])
            let oldPathFree = try await api.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: "old/a.md", content: "x"),
                                                 headers: ["If-None-Match": "*"])
            #expect(oldPathFree.status == 201)
        }
    }

    @Test func pathsClashIgnoringCaseAndUnicodeNormalisation() async throws {
        try await LiveServer.with { _, api in
            try await api.create("Notes.md", "a")
            let sameFolded = try await api.put(NoteID(), path: "notes.md", content: "b", headers: ["If-None-Match": "*"])
            #expect(sameFolded.status == 409)
            #expect(sameFolded.errorCode == "path_taken")

            let nfd = try await api.create("cafe\u{301}.md", "c")
            #expect(Array(nfd.path.utf8) == Array("caf\u{E9}.md".utf8), "paths are stored NFC")
            let nfc = try await api.put(NoteID(), path: "caf\u{E9}.md", content: "d", headers: ["If-None-Match": "*"])
            #expect(nfc.status == 409)
            let renameOnto = try await api.put(nfd.id, path: "NOTES.md", content: "c", headers: ["If-Match": "\"\(nfd.rev)\""])
            #expect(renameOnto.status == 409)
            #expect(renameOnto.errorCode == "path_taken")
            let caseOnly = try await api.put(nfd.id, path: "CAFE\u{301}.md", content: "c", headers: ["If-Match": "\"\(nfd.rev)\""])
            #expect(caseOnly.status == 200, "a note may change the case of its own path")
        }
    }
}

/// The 412 body: the error plus the note as it is now.
struct StaleBody: Decodable {
    let error: APIErrorBody.Detail
    let note: NoteResource?
}
