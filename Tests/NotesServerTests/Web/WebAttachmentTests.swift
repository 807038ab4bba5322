import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Attachments in the web app and on published pages: served by path with the attachments'
/// safety headers, a note's relative images rewritten to them, uploads from a form, and a
/// publication's scoped addresses for the images its note embeds (and nothing else).
@Suite("Web attachments")
struct WebAttachmentTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + testBytes(300, seed: 15)

    /// Stores `bytes` at `path` through the API, as `notes sync` would.
    @discardableResult
    static func attach(_ api: SignedInApp, _ path: String, _ bytes: [UInt8]) async throws -> BatchResult {
        let result = try await api.putAttachment(path, hash: try await api.upload(bytes))
        try #require(result.status == 201, "put answered \(result.status)")
        return result
    }

    @Test("/files/PATH needs a session; PNG is shown inline, HTML and SVG are downloads, all under sandbox with Range")
    func fileRouteServesSafely() async throws {
        try await SignedInApp.with { api in
            try await Self.attach(api, "img/a.png", Self.png)
            try await Self.attach(api, "page.html", Array("<script>window.pwned=1</script>".utf8))
            try await Self.attach(api, "draw.svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>1</script></svg>".utf8))
            let browser = WebBrowser(api.app)
            #expect(await browser.fetch("/files/img/a.png").status == 303, "no session: off to sign in")
            try await browser.signIn()
            let image = await browser.fetch("/files/img/a.png")
            #expect(image.status == 200 && image.body == Data(Self.png))
            #expect(image.header("content-type") == "image/png")
            #expect(image.header("content-disposition")?.hasPrefix("inline") == true)
            #expect(image.header("content-security-policy") == "sandbox")
            for path in ["/files/page.html", "/files/draw.svg"] {
                let download = await browser.fetch(path)
                #expect(download.status == 200 && download.header("content-security-policy") == "sandbox", "\(path)")
                #expect(download.header("content-disposition")?.hasPrefix("attachment") == true, "\(path) is a download")
            }
            let range = await browser.fetch("/files/img/a.png", headers: ["Range": "bytes=0-3"])
            #expect(range.status == 206 && range.body == Data(Self.png.prefix(4)))
            #expect(await browser.fetch("/files/img/missing.png").status == 404)
            #expect(await browser.fetch("/files/img/../img/a.png").status == 404, "no dot segments")
        }
    }

    @Test("a note's relative image and links lead to /files and the linked note; the tree lists files with kind and size")
    func noteLinksAreRewritten() async throws {
        try await SignedInApp.with { api in
            try await Self.attach(api, "work/img/chart.png", Self.png)
            try await Self.attach(api, "docs/spec v2.pdf", Array("%PDF-1.4".utf8))
            let other = try api.app.addNote("work/other.md", "# Other\n")
            let id = try api.app.addNote("work/plan.md", """
                ![chart](img/chart.png) [spec](../docs/spec%20v2.pdf) [other](other.md#part) ![gone](img/gone.png) [site](https://example.com)

                """)
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let page = await browser.get("/notes/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("<img src=\"/files/work/img/chart.png\" alt=\"chart\""))
            #expect(page.body.contains("href=\"/files/docs/spec%20v2.pdf\""))
            #expect(page.body.contains("href=\"/notes/\(other)#part\""))
            #expect(page.body.contains("src=\"img/gone.png\""), "a path naming nothing is kept as written")
            #expect(page.body.contains("href=\"https://example.com\""))
            let home = await browser.get("/")
            #expect(home.body.contains("<a href=\"/files/work/img/chart.png\">chart.png</a>"))
            #expect(home.body.contains("image/png · 308 B"))
        }
    }

    @Test("an upload from the form creates an attachment the changes feed carries, byte-exact")
    func uploadCreatesAttachment() async throws {
        try await SignedInApp.with { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let posted = await browser.upload([("csrf", csrf), ("folder", "pics/")], fileName: "cat.png", bytes: Self.png)
            #expect(posted.status == 303 && posted.header("location") == "/?done=uploaded&folder=pics", "home again, the form still on the folder")
            let feed = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            let entry = try #require(feed.changes.first { $0.path == "pics/cat.png" })
            #expect(entry.kind == .attachment && entry.hash == SHA256.hex(of: Self.png) && entry.size == Self.png.count)
            #expect(await browser.fetch("/files/pics/cat.png").body == Data(Self.png))
            let again = await browser.upload([("csrf", csrf), ("folder", "PICS")], fileName: "CAT.png", bytes: Self.png)
            #expect(again.status == 409 && again.body.contains("already a note or file"))
            let dotted = await browser.upload([("csrf", csrf), ("folder", "")], fileName: ".secret", bytes: Self.png)
            #expect(dotted.status == 422)
            let note = await browser.upload([("csrf", csrf), ("folder", "")], fileName: "a.md", bytes: Array("# A".utf8))
            #expect(note.status == 422 && note.body.contains("Markdown note"))
        }
    }

    @Test("an upload over the attachment size limit is refused with a page (413), over the quota 507, nothing stored")
    func uploadLimits() async throws {
        try await SignedInApp.with({ $0.attachments.maxAttachmentBytes = 1000; $0.attachments.quotaBytes = 1500 }) { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let large = await browser.upload([("csrf", csrf)], fileName: "big.bin", bytes: testBytes(1001, seed: 1))
            #expect(large.status == 413 && large.body.contains("at most 1000 B") && large.body.contains("<form"))
            #expect(await browser.upload([("csrf", csrf)], fileName: "one.bin", bytes: testBytes(1000, seed: 2)).status == 303)
            let over = await browser.upload([("csrf", csrf)], fileName: "two.bin", bytes: testBytes(1000, seed: 3))
            #expect(over.status == 507 && over.body.contains("does not fit"))
            let feed = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            #expect(feed.changes.map(\.path) == ["one.bin"])
            #expect(try api.app.application.contents.usage(userID: 1) == 1000)
        }
    }

    @Test("an upload without the CSRF token, or from another origin, is refused and stores nothing")
    func uploadNeedsCSRFAndSameOrigin() async throws {
        try await SignedInApp.with { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            #expect(await browser.upload([], fileName: "a.png", bytes: Self.png).status == 403)
            #expect(await browser.upload([("csrf", "forged")], fileName: "a.png", bytes: Self.png).status == 403)
            #expect(await browser.upload([("csrf", csrf)], fileName: "a.png", bytes: Self.png, origin: "https://evil.example").status == 403)
            let feed = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            #expect(feed.changes.isEmpty)
        }
    }

    @Test("the multipart reader refuses two files, a repeated field and a body without its closing boundary")
    func multipartBounds() throws {
        let boundary = "b0und"
        func body(_ parts: [String], close: Bool = true) -> [UInt8] {
            Array((parts.map { "--\(boundary)\r\n\($0)\r\n" }.joined() + (close ? "--\(boundary)--\r\n" : "")).utf8)
        }
        let file = "Content-Disposition: form-data; name=\"file\"; filename=\"a;b.png\"\r\nContent-Type: image/png\r\n\r\nPNG"
        let field = "Content-Disposition: form-data; name=\"csrf\"\r\n\r\nxyz"
        let parsed = try WebMultipart(body: body([field, file]), boundary: boundary)
        #expect(parsed.fields == ["csrf": "xyz"] && parsed.file?.fileName == "a;b.png" && parsed.file.map { Array($0.bytes) } == Array("PNG".utf8))
        #expect(throws: HTTPError.self) { try WebMultipart(body: body([file, file.replacingOccurrences(of: "\"file\"", with: "\"f2\"")]), boundary: boundary) }
        #expect(throws: HTTPError.self) { try WebMultipart(body: body([field, field]), boundary: boundary) }
        #expect(throws: HTTPError.self) { try WebMultipart(body: body([field], close: false), boundary: boundary) }
        #expect(throws: HTTPError.self) { try WebMultipart(body: body(Array(repeating: field, count: 9)), boundary: boundary) }
        #expect(WebMultipart.boundary(contentType: "multipart/form-data; boundary=\"x y\"") == "x y")
        #expect(WebMultipart.boundary(contentType: "application/x-www-form-urlencoded") == nil)
    }

    @Test("/p/TOKEN/a/PATH serves the images the published note embeds, and the 404 page for any other file or a .. trick")
    func publicationServesEmbeddedImagesOnly() async throws {
        try await SignedInApp.with { api in
            let logo = testBytes(200, seed: 7)
            try await Self.attach(api, "blog/img/c.png", Self.png)
            try await Self.attach(api, "shared/logo.png", logo)
            try await Self.attach(api, "blog/img/secret.png", testBytes(100, seed: 8))
            let id = try api.app.addNote("blog/post.md", "# Post\n\n![c](img/c.png) ![logo](../shared/logo.png)\n")
            let publication = try await PublicationTests.publish(api.app, id, token: api.token)
            let base = PublicationToken.path(for: try #require(publication.token))
            let page = await Self.anonymous(api.app, base)
            #expect(page.text.contains("src=\"\(base)/a/img/c.png\"") && page.text.contains("src=\"\(base)/a/shared/logo.png?up=1\""))
            let image = await Self.anonymous(api.app, base + "/a/img/c.png")
            #expect(image.status == 200 && image.body == Data(Self.png))
            #expect(image.header("content-security-policy") == "sandbox" && image.header("content-type") == "image/png")
            #expect(image.header("x-robots-tag") == "noindex")
            #expect(await Self.anonymous(api.app, base + "/a/shared/logo.png", query: ["up": "1"]).body == Data(logo))
            let notFound = Data(PublicationPage.notFound.body)
            for (path, query) in [("/a/img/secret.png", [:]), ("/a/img/../img/secret.png", [:]), ("/a/../img/c.png", [:]),
                                  ("/a/shared/logo.png", ["up": "2"]), ("/a/logo.png", ["up": "-1"]), ("/a/img/c.png", ["up": "1"])] as [(String, [String: String])] {
                let refused = await Self.anonymous(api.app, base + path, query: query)
                #expect(refused.status == 404 && refused.body == notFound, "\(path) \(query)")
            }
            let other = PublicationToken.path(for: String(repeating: "A", count: PublicationToken.length))
            #expect(await Self.anonymous(api.app, other + "/a/img/c.png").status == 404)
        }
    }

    /// `path` as an anonymous reader's browser gets it (through the whole site, file bodies read).
    static func anonymous(_ app: TestApp, _ path: String, query: [String: String] = [:]) async -> TestAPIResponse {
        let request = HTTPRequest(method: "GET", path: path, query: query, remoteAddress: "192.0.2.9")
        switch app.application.responder.respond(to: request) {
        case .now(let answer): return SignedInApp.convert(answer)
        case .later(let work): return SignedInApp.convert(await work())
        }
    }
}

extension WebBrowser {
    /// A GET whose answer may be a file (read here, as the HTTP layer would send it).
    func fetch(_ path: String, headers extra: [String: String] = [:]) async -> TestAPIResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        if !cookies.isEmpty { headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: "GET", path: path, headers: headers)
        switch app.application.responder.respond(to: request) {
        case .now(let answer): return SignedInApp.convert(answer)
        case .later(let work): return SignedInApp.convert(await work())
        }
    }

    /// Posts the upload form as a browser does: `multipart/form-data`, the text fields, then the file.
    func upload(_ fields: [(String, String)], fileName: String, bytes: [UInt8], origin: String? = nil) async -> Page {
        let boundary = "----NotesTestBoundary4f2a"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Origin", value: origin ?? self.origin)
        headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        let request = HTTPRequest(method: "POST", path: "/upload", headers: headers, body: body)
        let response: HTTPResponse
        switch app.application.responder.respond(to: request) {
        case .now(let answer): response = answer
        case .later(let work): response = await work()
        }
        return Page(status: response.status, headers: response.headers, body: String(decoding: response.body, as: UTF8.self))
    }
}
