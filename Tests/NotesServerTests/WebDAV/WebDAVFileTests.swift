import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// WebDAV's files are the account's entries: what a PUT writes, every other door reads, with
/// history and its author; DELETE goes to the trash; the ETag is the content hash and a stale
/// one changes nothing.
@Suite("WebDAV: files are the same entries as everywhere")
struct WebDAVFileTests {
    @Test("a PUT makes a note the API reads byte for byte, with a revision whose author is the token")
    func putIsARevisionWithAuthor() async throws {
        try await TestApp.with { app in
            let (auth, token) = try await app.davCredentials(name: "phone")
            let text = "# Plan\n\nDay one — café ☕\n"
            let put = await app.dav("PUT", "/dav/personal/plan.md", body: text, authorization: auth)
            #expect(put.status == 201)
            #expect(put.header("ETag") == "\"\(SHA256.hex(of: Array(text.utf8)))\"")

            let session = try await app.signIn().accessToken
            let list = try await app.send("GET", "/v1/notes", token: session).decode(NoteListPage.self)
            let note = try #require(list.notes.first { $0.path == "plan.md" })
            #expect(note.hash == SHA256.hex(of: Array(text.utf8)))
            let revisions = try await app.send("GET", "/v1/notes/\(note.id)/revisions", token: session).decode(RevisionList.self)
            #expect(revisions.revisions.map(\.device) == ["token:\(token.name)"])

            let get = await app.dav("GET", "/dav/personal/plan.md", authorization: auth)
            #expect(get.status == 200)
            #expect(get.text == text)
            #expect(get.header("Content-Type") == "text/markdown; charset=utf-8")
        }
    }

    @Test("a PUT over a note someone else changed, without If-Match, keeps the overwritten text in history")
    func blindOverwriteKeepsHistory() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/a.md", body: "first\n", authorization: auth).status == 201)
            #expect(await app.dav("PUT", "/dav/personal/a.md", body: "second\n", authorization: auth).status == 204)
            let session = try await app.signIn().accessToken
            let note = try #require(try await app.send("GET", "/v1/notes", token: session).decode(NoteListPage.self).notes.first)
            let revisions = try await app.send("GET", "/v1/notes/\(note.id)/revisions", token: session).decode(RevisionList.self).revisions
            #expect(revisions.count == 2)
            let oldest = try #require(revisions.min { $0.rev < $1.rev })
            let first = try await app.send("GET", "/v1/notes/\(note.id)/revisions/\(oldest.rev)", token: session).decode(RevisionResource.self)
            #expect(first.content == "first\n")
        }
    }

    @Test("two writers with the same If-Match: the first wins, the second gets 412, and history holds only what was acknowledged")
    func staleIfMatchChangesNothing() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let created = await app.dav("PUT", "/dav/personal/shared.md", body: "base\n", authorization: auth)
            let etag = try #require(created.header("ETag"))
            let first = await app.dav("PUT", "/dav/personal/shared.md", body: "mine\n", authorization: auth, headers: ["If-Match": etag])
            let second = await app.dav("PUT", "/dav/personal/shared.md", body: "theirs\n", authorization: auth, headers: ["If-Match": etag])
            #expect(first.status == 204)
            #expect(second.status == 412)
            #expect(await app.dav("GET", "/dav/personal/shared.md", authorization: auth).text == "mine\n")
            #expect(try app.count("SELECT count(*) FROM revisions") == 2, "base and mine; theirs was refused")
        }
    }

    @Test("DELETE sends a note to the trash, from where the API lists it")
    func deleteGoesToTrash() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/gone.md", body: "bye\n", authorization: auth).status == 201)
            #expect(await app.dav("DELETE", "/dav/personal/gone.md", authorization: auth).status == 204)
            #expect(await app.dav("GET", "/dav/personal/gone.md", authorization: auth).status == 404)
            let session = try await app.signIn().accessToken
            let trash = try await app.send("GET", "/v1/trash", token: session).decode(TrashPage.self)
            #expect(trash.notes.map(\.path) == ["gone.md"])
        }
    }

    @Test("a file that is not a note is stored as an attachment, read back byte-exact and in ranges")
    func attachmentRoundTripWithRange() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(await app.dav("PUT", "/dav/personal/photo.png", bytes: bytes, authorization: auth).status == 201)
            let whole = await app.dav("GET", "/dav/personal/photo.png", authorization: auth)
            #expect(whole.status == 200)
            #expect(Array(whole.body) == bytes)
            #expect(whole.header("ETag") == "\"\(SHA256.hex(of: bytes))\"")
            let part = await app.dav("GET", "/dav/personal/photo.png", authorization: auth, headers: ["Range": "bytes=100-199"])
            #expect(part.status == 206)
            #expect(Array(part.body) == Array(bytes[100..<200]))
            let session = try await app.signIn().accessToken
            let list = try await app.send("GET", "/v1/notes", query: ["kinds": "note,attachment"], token: session).decode(NoteListPage.self)
            #expect(list.notes.first { $0.path == "photo.png" }?.kind == .attachment)
        }
    }

    @Test("a PUT into a folder that does not exist answers 409; MKCOL makes it, and then the PUT works")
    func putNeedsItsFolder() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/work/todo.md", body: "x", authorization: auth).status == 409)
            #expect(await app.dav("MKCOL", "/dav/personal/work", authorization: auth).status == 201)
            #expect(await app.dav("MKCOL", "/dav/personal/work", authorization: auth).status == 405)
            #expect(await app.dav("PUT", "/dav/personal/work/todo.md", body: "x", authorization: auth).status == 201)
        }
    }

    @Test("a name sync could not store is refused with the reason in the body")
    func refusedNameSaysWhy() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let response = await app.dav("PUT", "/dav/personal/.hidden.md", body: "x", authorization: auth)
            #expect(response.status == 400)
            #expect(response.text.contains("starting with a dot"))
        }
    }

    @Test("a note over the note size is refused with 413 before its body is read")
    func noteSizeLimit() async throws {
        try await TestApp.with({ $0.limits.maxNoteBytes = 100 }) { app in
            let (auth, _) = try await app.davCredentials()
            let response = await app.dav("PUT", "/dav/personal/big.md", body: String(repeating: "x", count: 101), authorization: auth)
            #expect(response.status == 413)
            #expect(try app.count("SELECT count(*) FROM notes") == 0)
        }
    }

    @Test("an attachment over the attachment size gets 413 and one past the quota 507, before a byte is stored")
    func attachmentLimits() async throws {
        try await TestApp.with({ $0.attachments.maxAttachmentBytes = 1000; $0.attachments.quotaBytes = 1500 }) { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/big.bin", bytes: [UInt8](repeating: 1, count: 1001), authorization: auth).status == 413)
            #expect(await app.dav("PUT", "/dav/personal/one.bin", bytes: [UInt8](repeating: 2, count: 1000), authorization: auth).status == 201)
            #expect(await app.dav("PUT", "/dav/personal/two.bin", bytes: [UInt8](repeating: 3, count: 600), authorization: auth).status == 507)
            #expect(try app.count("SELECT count(*) FROM contents") == 1)
        }
    }

    @Test("a WebDAV write wakes the owner's held long poll")
    func putWakesLongPoll() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let session = try await app.signIn().accessToken
            let cursor = try await app.send("GET", "/v1/changes", query: ["since": "0"], token: session).decode(ChangesPage.self).cursor
            async let held = app.send("GET", "/v1/changes", query: ["since": cursor, "wait": "30"], token: session)
            let user = try #require(try app.application.database.read { db in try db.scalarInt("SELECT id FROM users") })
            #expect(try await waitUntil { app.application.changeNotifier.waiting(user: user) == 1 })
            #expect(await app.dav("PUT", "/dav/personal/new.md", body: "hello", authorization: auth).status == 201)
            let page = try await held.decode(ChangesPage.self)
            #expect(page.changes.map(\.path) == ["new.md"])
        }
    }
}
