import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// WebDAV's request bodies as clients send them, read by the server's XML reader: ordinary
/// bodies keep working, and bodies that try to reach a file or expand entities are refused
/// with 400 before anything is stored or answered from them.
@Suite("WebDAV: XML request bodies")
struct WebDAVXMLBodyTests {
    @Test("a PROPPATCH whose property value names a file through an external entity is refused with 400; nothing is stored and the file never appears")
    func externalEntityInPropertyRefused() async throws {
        let folder = try TemporaryDirectory("dav-xxe")
        defer { folder.remove() }
        let secret = folder.appending("secret.txt")
        try Data("the-secret-file-content".utf8).write(to: secret)
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/x.md", body: "x", authorization: auth).status == 201)
            let set = """
                <?xml version="1.0"?><!DOCTYPE p [<!ENTITY leak SYSTEM "file://\(secret.path)">]>\
                <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:leak>&leak;</Z:leak></D:prop></D:set></D:propertyupdate>
                """
            let refused = await app.dav("PROPPATCH", "/dav/personal/x.md", body: set, authorization: auth)
            #expect(refused.status == 400)
            #expect(!refused.text.contains("the-secret-file-content"))
            #expect(try app.count("SELECT count(*) FROM dav_properties") == 0)
            let ask = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#
            let listed = await app.dav("PROPFIND", "/dav/personal/x.md", body: ask, authorization: auth, headers: ["Depth": "0"])
            #expect(listed.status == 207)
            #expect(!listed.text.contains("the-secret-file-content"))
        }
    }

    @Test("a LOCK body carrying a billion-laughs DTD is refused with 400 and takes no lock")
    func billionLaughsLockRefused() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "l", authorization: auth).status == 201)
            var entities = #"<!ENTITY a "lollollollollol">"#
            for (level, previous) in zip("bcdefghij", "abcdefghi") {
                entities += "<!ENTITY \(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
            }
            let body = """
                <?xml version="1.0"?><!DOCTYPE D:lockinfo [\(entities)]><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>\
                <D:locktype><D:write/></D:locktype><D:owner>&j;</D:owner></D:lockinfo>
                """
            let locked = await app.dav("LOCK", "/dav/personal/l.md", body: body, authorization: auth, headers: ["Timeout": "Second-60"])
            #expect(locked.status == 400)
            #expect(await app.dav("PUT", "/dav/personal/l.md", body: "m", authorization: auth).status == 204)
        }
    }

    @Test("a dead property with text, CDATA, attributes and nested elements in several namespaces comes back as it was set")
    func propertyValueRoundTrips() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/r.md", body: "r", authorization: auth).status == 201)
            let set = """
                <?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop>\
                <Z:note xmlns:Z="urn:z" level="2">a &lt; b <![CDATA[& c]]><Y:inner xmlns:Y="urn:y">&#x263A;</Y:inner></Z:note>\
                </D:prop></D:set></D:propertyupdate>
                """
            #expect(await app.dav("PROPPATCH", "/dav/personal/r.md", body: set, authorization: auth).status == 207)
            let ask = #"<D:propfind xmlns:D="DAV:"><D:prop><note xmlns="urn:z"/></D:prop></D:propfind>"#
            let found = await app.dav("PROPFIND", "/dav/personal/r.md", body: ask, authorization: auth, headers: ["Depth": "0"])
            #expect(found.text.contains(#"<note xmlns="urn:z" level="2">a &lt; b &amp; c<inner xmlns="urn:y">☺</inner></note>"#))
        }
    }
}
