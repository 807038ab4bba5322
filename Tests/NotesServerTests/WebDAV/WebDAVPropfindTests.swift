import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// PROPFIND: what a WebDAV client sees of a space, level by level.
@Suite("WebDAV: PROPFIND lists a space")
struct WebDAVPropfindTests {
    @Test("/dav/ lists the personal space as its one collection")
    func rootListsPersonalSpace() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials(scope: .read)
            let response = await app.dav("PROPFIND", "/dav/", authorization: auth, headers: ["Depth": "1"])
            #expect(response.status == 207)
            #expect(response.hrefs == ["/dav/", "/dav/personal/"])
            #expect(response.text.contains("<D:collection/>"))
        }
    }

    @Test("Depth 1 lists a folder's files with length, type and ETag (the content hash) and each subfolder once")
    func depthOneListsFilesAndFolders() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("MKCOL", "/dav/personal/a", authorization: auth).status == 201)
            #expect(await app.dav("MKCOL", "/dav/personal/a/b", authorization: auth).status == 201)
            #expect(await app.dav("MKCOL", "/dav/personal/empty", authorization: auth).status == 201)
            for path in ["a/b/one.md", "a/b/two.md", "top.md", "a/b-c.md", "a/sp ace €.md"] {
                #expect(await app.dav("PUT", "/dav/personal/" + path, body: "text of \(path)", authorization: auth).status == 201)
            }
            let root = await app.dav("PROPFIND", "/dav/personal/", authorization: auth, headers: ["Depth": "1"])
            #expect(root.status == 207)
            #expect(Set(root.hrefs) == ["/dav/personal/", "/dav/personal/a/", "/dav/personal/top.md", "/dav/personal/empty/"])
            let folder = await app.dav("PROPFIND", "/dav/personal/a/", authorization: auth, headers: ["Depth": "1"])
            #expect(folder.hrefs == ["/dav/personal/a/", "/dav/personal/a/b-c.md", "/dav/personal/a/b/", "/dav/personal/a/sp%20ace%20%E2%82%AC.md"])
            let file = await app.dav("PROPFIND", "/dav/personal/top.md", authorization: auth, headers: ["Depth": "0"])
            let text = "text of top.md"
            #expect(file.text.contains("<D:getetag>&quot;\(SHA256.hex(of: Array(text.utf8)))&quot;</D:getetag>"))
            #expect(file.text.contains("<D:getcontentlength>\(text.utf8.count)</D:getcontentlength>"))
            #expect(file.text.contains("<D:getcontenttype>text/markdown; charset=utf-8</D:getcontenttype>"))
        }
    }

    @Test("Depth infinity, or no Depth at all, is refused with propfind-finite-depth")
    func infinityRefused() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials(scope: .read)
            for headers in [["Depth": "infinity"], [:]] {
                let response = await app.dav("PROPFIND", "/dav/personal/", authorization: auth, headers: headers)
                #expect(response.status == 403)
                #expect(response.text.contains("<D:propfind-finite-depth/>"))
            }
        }
    }

    @Test("asked-for properties come back found (200) or not found (404), the quota ones included")
    func namedProperties() async throws {
        try await TestApp.with({ $0.attachments.quotaBytes = 1_000_000 }) { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/pic.jpg", bytes: [1, 2, 3], authorization: auth).status == 201)
            let body = """
                <?xml version="1.0"?><propfind xmlns="DAV:" xmlns:x="urn:x"><prop><getcontenttype/><x:nothing/>\
                <quota-used-bytes/><quota-available-bytes/></prop></propfind>
                """
            let file = await app.dav("PROPFIND", "/dav/personal/pic.jpg", body: body, authorization: auth, headers: ["Depth": "0"])
            #expect(file.text.contains("<D:getcontenttype>image/jpeg</D:getcontenttype>"))
            #expect(file.text.contains("<nothing xmlns=\"urn:x\"/>"))
            #expect(file.text.contains("HTTP/1.1 404 Not Found"))
            let root = await app.dav("PROPFIND", "/dav/personal/", body: body, authorization: auth, headers: ["Depth": "0"])
            #expect(root.text.contains("<D:quota-used-bytes>3</D:quota-used-bytes>"))
            #expect(root.text.contains("<D:quota-available-bytes>999997</D:quota-available-bytes>"))
        }
    }

    @Test("Depth 1 over a folder of 10,000 entries answers every one, written out through a file rather than held in memory")
    func largeFolderStreams() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let user = try #require(try app.application.database.read { db in try db.scalarInt("SELECT id FROM users") })
            let notes = app.application.notes
            _ = try notes.write(for: user) { db in
                for index in 0..<10_000 {
                    _ = try notes.put(db, userID: user, id: NoteID(), path: try NotePath("big/note-\(index).md"), content: "n\(index)",
                                      precondition: .absent)
                }
            }
            let response = await app.dav("PROPFIND", "/dav/personal/big/", authorization: auth, headers: ["Depth": "1"])
            #expect(response.status == 207)
            #expect(response.hrefs.count == 10_001)
            #expect(Set(response.hrefs).count == 10_001)
            #expect(response.header("x-test-sent-from-file") == "yes")
        }
    }
}
