import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// How WebDAV reads what clients send: XML bodies must be namespace-well-formed, and an `If`
/// header cut off by a client's buffer loses its last list rather than the whole request.
@Suite("WebDAV: reading request bodies and If headers")
struct WebDAVRequestReadingTests {
    @Test("a body binding a prefix to no namespace is refused with 400, not read as if it were fine")
    func emptyPrefixRefused() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials(scope: .read)
            let body = #"<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>"#
            let response = await app.dav("PROPFIND", "/dav/personal/", body: body, authorization: auth, headers: ["Depth": "0"])
            #expect(response.status == 400)
        }
    }

    @Test("an If header whose last list is cut off is judged by its complete lists: true lets the write in, false answers 412")
    func cutOffIfHeader() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            let created = await app.dav("PUT", "/dav/personal/c.md", body: "c", authorization: auth)
            let etag = try #require(created.header("ETag"))
            let cut = "(Not <DAV:no-lock> [\(etag.prefix(20))"
            let holds = await app.dav("PUT", "/dav/personal/c.md", body: "d", authorization: auth,
                                      headers: ["If": "(Not <DAV:no-lock> [\(etag)]) \(cut)"])
            #expect(holds.status == 204)
            let fails = await app.dav("PUT", "/dav/personal/c.md", body: "e", authorization: auth,
                                      headers: ["If": "([\"stale\"]) \(cut)"])
            #expect(fails.status == 412)
            #expect(await app.dav("GET", "/dav/personal/c.md", authorization: auth).text == "d")
            let nothingComplete = await app.dav("PUT", "/dav/personal/c.md", body: "f", authorization: auth, headers: ["If": cut])
            #expect(nothingComplete.status == 400)
        }
    }
}
