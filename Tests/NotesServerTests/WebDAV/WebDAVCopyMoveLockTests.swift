import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// COPY, MOVE, PROPPATCH and locks: renames keep ids and history, dead properties stay with
/// their file, a lock holds off other WebDAV writers until its token is shown or it expires.
@Suite("WebDAV: copy, move, properties and locks")
struct WebDAVCopyMoveLockTests {
    /// A LOCK body asking for an exclusive write lock.
    static let exclusiveLock = #"<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>me</D:owner></D:lockinfo>"#

    private func noteID(_ app: TestApp, at path: String) throws -> String? {
        try app.application.database.read { db in
            try db.scalarString("SELECT id FROM notes WHERE deleted = 0 AND path = ?", [path])
        }
    }

    @Test("a MOVE is a rename: the note keeps its id and its history")
    func moveKeepsID() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/old.md", body: "one", authorization: auth).status == 201)
            #expect(await app.dav("PUT", "/dav/personal/old.md", body: "two", authorization: auth).status == 204)
            let id = try #require(try noteID(app, at: "old.md"))
            let moved = await app.dav("MOVE", "/dav/personal/old.md", authorization: auth,
                                      headers: ["Destination": "http://notes.test/dav/personal/new%20name.md"])
            #expect(moved.status == 201)
            #expect(try noteID(app, at: "new name.md") == id)
            #expect(try noteID(app, at: "old.md") == nil)
            #expect(try app.count("SELECT count(*) FROM revisions WHERE note_id = '\(id)'") == 3)
        }
    }

    @Test("moving a folder renames every entry inside it, ids kept")
    func moveFolder() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("MKCOL", "/dav/personal/from", authorization: auth).status == 201)
            #expect(await app.dav("PUT", "/dav/personal/from/a.md", body: "a", authorization: auth).status == 201)
            let id = try #require(try noteID(app, at: "from/a.md"))
            #expect(await app.dav("MOVE", "/dav/personal/from/", authorization: auth, headers: ["Destination": "/dav/personal/to/"]).status == 201)
            #expect(try noteID(app, at: "to/a.md") == id)
            #expect(await app.dav("PROPFIND", "/dav/personal/from/", authorization: auth, headers: ["Depth": "0"]).status == 404)
        }
    }

    @Test("Overwrite: F refuses an occupied destination with 412; the default replaces it, sending the old file to the trash")
    func overwrite() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/a.md", body: "a", authorization: auth).status == 201)
            #expect(await app.dav("PUT", "/dav/personal/b.md", body: "b", authorization: auth).status == 201)
            #expect(await app.dav("COPY", "/dav/personal/a.md", authorization: auth,
                                  headers: ["Destination": "/dav/personal/b.md", "Overwrite": "F"]).status == 412)
            #expect(await app.dav("COPY", "/dav/personal/a.md", authorization: auth, headers: ["Destination": "/dav/personal/b.md"]).status == 204)
            #expect(await app.dav("GET", "/dav/personal/b.md", authorization: auth).text == "a")
            #expect(try app.count("SELECT count(*) FROM notes WHERE deleted = 1 AND path = 'b.md'") == 1)
        }
    }

    @Test("PROPPATCH keeps a dead property with its namespace; a live one is protected and nothing is applied")
    func deadProperties() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/p.md", body: "p", authorization: auth).status == 201)
            let set = """
                <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop>\
                <Z:colour>blue &amp; <Z:shade>dark</Z:shade></Z:colour></D:prop></D:set></D:propertyupdate>
                """
            #expect(await app.dav("PROPPATCH", "/dav/personal/p.md", body: set, authorization: auth).status == 207)
            let ask = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><colour xmlns="urn:z"/></D:prop></D:propfind>"#
            let found = await app.dav("PROPFIND", "/dav/personal/p.md", body: ask, authorization: auth, headers: ["Depth": "0"])
            #expect(found.text.contains(#"<colour xmlns="urn:z">blue &amp; <shade>dark</shade></colour>"#))
            let protected = """
                <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getetag>x</D:getetag>\
                <D:other>y</D:other></D:prop></D:set></D:propertyupdate>
                """
            let refused = await app.dav("PROPPATCH", "/dav/personal/p.md", body: protected, authorization: auth)
            #expect(refused.text.contains("HTTP/1.1 403 Forbidden"))
            #expect(refused.text.contains("HTTP/1.1 424 Failed Dependency"))
            #expect(try app.count("SELECT count(*) FROM dav_properties WHERE name = 'other'") == 0)
        }
    }

    @Test("a locked file refuses writes without its token (423), takes them with it, and frees up on UNLOCK")
    func lockHoldsOffWriters() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "l", authorization: auth).status == 201)
            let locked = await app.dav("LOCK", "/dav/personal/l.md", body: Self.exclusiveLock, authorization: auth, headers: ["Timeout": "Second-60"])
            #expect(locked.status == 200)
            let token = try #require(locked.header("Lock-Token"))
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "x", authorization: auth).status == 423)
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "y", authorization: auth, headers: ["If": "(\(token))"]).status == 204)
            #expect(await app.dav("UNLOCK", "/dav/personal/l.md", authorization: auth, headers: ["Lock-Token": token]).status == 204)
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "z", authorization: auth).status == 204)
        }
    }

    @Test("a lock never outlives its timeout, and never blocks the owner's writes through the API")
    func lockExpiresAndSpareSync() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/t.md", body: "t", authorization: auth).status == 201)
            #expect(await app.dav("LOCK", "/dav/personal/t.md", body: Self.exclusiveLock, authorization: auth, headers: ["Timeout": "Second-30"]).status == 200)
            let session = try await app.signIn().accessToken
            let note = try #require(try await app.send("GET", "/v1/notes", token: session).decode(NoteListPage.self).notes.first)
            let api = try await app.send("PUT", "/v1/notes/\(note.id)", json: PutNoteRequest(path: "t.md", content: "from sync"),
                                         token: session, headers: ["If-Match": "\"\(note.rev)\""])
            #expect(api.status == 200)
            #expect(await app.dav("PUT", "/dav/personal/t.md", body: "x", authorization: auth).status == 423)
            app.clock.advance(seconds: 31)
            #expect(await app.dav("PUT", "/dav/personal/t.md", body: "x", authorization: auth).status == 204)
        }
    }
}
