import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Published notes through the real application in-process, on its own database and clock:
/// what the owner's API does, and what an anonymous reader of `/p/<token>` can and cannot see.
@Suite("Published notes")
struct PublicationTests {
    // MARK: Fixtures

    /// Creates (or, with `rev`, updates) a note and returns it.
    @discardableResult
    static func put(_ app: TestApp, _ id: NoteID, _ path: String, _ content: String, token: String, rev: Int64? = nil) async throws -> NoteResource {
        let condition = rev.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
        let response = try await app.send("PUT", "/v1/notes/\(id)", json: PutNoteRequest(path: path, content: content), token: token,
                                           headers: condition)
        try #require((200...201).contains(response.status), "PUT answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    /// Publishes note `id` and returns the answer, failing unless it is 201.
    static func publish(_ app: TestApp, _ id: NoteID, token: String, _ request: CreatePublicationRequest = .init()) async throws -> PublicationResource {
        let response = try await app.send("POST", "/v1/notes/\(id)/publication", json: request, token: token)
        try #require(response.status == 201, "publish answered \(response.status): \(response.text)")
        #expect(response.header("Cache-Control") == "no-store")
        return try response.decode(PublicationResource.self)
    }

    /// The page at `url` as an anonymous reader gets it (no token).
    static func read(_ app: TestApp, _ url: String?, from address: String = "192.0.2.7") async throws -> TestAPIResponse {
        await app.send("GET", try #require(url), from: address)
    }

    // MARK: Reading

    @Test("a published note is readable without signing in, shows its current text after an edit, with safe headers and noindex")
    func publishedPageShowsTheCurrentText() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            let note = try await Self.put(app, id, "plans/trip.md", "# Trip\n\nFirst draft.\n", token: token)
            let publication = try await Self.publish(app, id, token: token)
            let secret = try #require(publication.token)
            #expect(publication.url == "/p/\(secret)" && secret.count == 43)
            #expect(publication.noteId == id && publication.path == "plans/trip.md" && publication.expiresAt == nil && !publication.indexable)

            let first = try await Self.read(app, publication.url)
            #expect(first.status == 200)
            #expect(first.text.contains("<h1 id=\"trip\">Trip</h1>") && first.text.contains("First draft."))
            #expect(first.text.contains("<title>Trip</title>"))

            try await Self.put(app, id, "plans/trip.md", "# Trip\n\nSecond draft, *edited*.\n", token: token, rev: note.rev)
            let second = try await Self.read(app, publication.url)
            #expect(second.text.contains("Second draft, <em>edited</em>.") && !second.text.contains("First draft"))

            #expect(second.header("Content-Type") == "text/html; charset=utf-8")
            let policy = try #require(second.header("Content-Security-Policy"))
            #expect(policy.hasPrefix("default-src 'none'; style-src 'sha256-"))
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("img-src 'self' data:") && !policy.contains("unsafe"))
            #expect(!policy.contains("script-src"), "default-src 'none' forbids every script")
            #expect(second.header("X-Content-Type-Options") == "nosniff")
            #expect(second.header("Referrer-Policy") == "no-referrer")
            #expect(second.header("Cache-Control") == "no-store")
            #expect(second.header("X-Robots-Tag") == "noindex")
            #expect(second.text.contains("<meta name=\"robots\" content=\"noindex\">"))
            // The inline stylesheet is the one the policy's hash allows.
            let css = PublicationPage.stylesheet
            #expect(second.text.contains("<style>\(css)</style>"))
            #expect(policy.contains(Data(SHA256.digest(of: Array(css.utf8))).base64EncodedString()))
        }
    }

    @Test("a published page opens with a quiet header (the note's title and the day it changed) and ends with a footer")
    func pageHasHeaderAndFooter() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            let note = try await Self.put(app, id, "plans/trip.md", "# Trip to the coast\n\nFirst draft.\n", token: token)
            let publication = try await Self.publish(app, id, token: token)
            let html = try await Self.read(app, publication.url).text
            let day = note.updatedAt.prefix(10)
            #expect(html.contains("""
                <body>
                <header class="page-header"><span class="page-title">Trip to the coast</span> \
                <span class="page-date">Updated <time datetime="\(note.updatedAt)">\(day)</time></span></header>
                <main>
                """), "the header comes first, above the note")
            #expect(html.contains("</main>\n<footer class=\"page-footer\">Published with Notes</footer>\n</body>"))
            #expect(!html.contains("plans/"), "the header shows the title, never the path")

            let hostile = NoteID()
            try await Self.put(app, hostile, "x.md", "# Use `<script>window.pwned=1</script>` & <b>bold</b>\n", token: token)
            let page = try await Self.read(app, try await Self.publish(app, hostile, token: token).url).text
            let header = try #require(page.range(of: "<header class=\"page-header\">").map { page[$0.lowerBound...].prefix { $0 != "\n" } })
            #expect(header.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;"), "the title is text in the header: \(header)")
            #expect(!page.lowercased().contains("<script"), "no script element anywhere on the page")
            let css = PublicationPage.stylesheet
            #expect(css.contains("body { padding-top: 2.5rem; }"), "room above the header")
            #expect(css.contains("@page { margin: 2cm 2.2cm; }") && css.contains(".page-footer { display: none; }"), "paper margins, no footer in print")
        }
    }

    @Test("an indexable publication carries neither the noindex header nor the meta tag")
    func indexablePublicationHasNoNoindex() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "public.md", "For everyone.\n", token: token)
            let publication = try await Self.publish(app, id, token: token, CreatePublicationRequest(indexable: true))
            #expect(publication.indexable)
            let page = try await Self.read(app, publication.url)
            #expect(page.status == 200 && page.text.contains("For everyone."))
            #expect(page.header("X-Robots-Tag") == nil)
            #expect(!page.text.contains("noindex"))
        }
    }

    @Test("the page shows no note id, no other note's path and no link that walks the server; relative links become text")
    func pageLeadsNowhereElse() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID(), other = NoteID()
            try await Self.put(app, other, "private/diary-secret-name.md", "Private.\n", token: token)
            try await Self.put(app, id, "notes/shared.md", """
                # Shared

                See [[diary-secret-name]] and [the diary](../private/diary-secret-name.md), [the API](/v1/notes),
                [up](../../../etc/passwd), [proto](//evil.example/x), [a section](#shared) and [the web](https://example.com/page).

                ![a chart](img/chart%20one.png) ![logo](../assets/logo.png) ![climbing](../../outside.png) ![rooted](/etc/x.png)
                ![tracker](https://tracker.example/pixel.gif) ![dot](data:image/png;base64,iVBORw0KGgo=)

                """, token: token)
            let publication = try await Self.publish(app, id, token: token)
            let secret = try #require(publication.token)
            let page = try await Self.read(app, publication.url)
            #expect(page.status == 200)
            let html = page.text
            #expect(!html.contains(id.value) && !html.contains(id.value.uppercased()) && !html.contains(other.value))
            #expect(!html.contains("private/") && !html.contains("notes/shared"), "no folder path shows")
            #expect(html.contains("See diary-secret-name and"), "a wiki link to a note that is not published is its text")
            #expect(html.contains("the diary") && html.contains("the API") && html.contains("up") && html.contains("proto"))
            // Every link left leads off the server or within the page; every image through the publication or inline.
            let hrefs = Self.attributeValues("href", in: html)
            #expect(hrefs == ["#shared", "https://example.com/page"])
            let sources = Self.attributeValues("src", in: html)
            #expect(sources == ["/p/\(secret)/a/img/chart%20one.png", "/p/\(secret)/a/assets/logo.png?up=1",
                                "data:image/png;base64,iVBORw0KGgo="], "addressed from the note's folder, whose name never shows")
            #expect(html.contains("climbing") && html.contains("rooted") && html.contains("tracker"), "refused images show their alt text")
            #expect(!html.contains("tracker.example"))
        }
    }

    @Test("script payloads in a published note render inert: no script element, no javascript: link, no event attribute")
    func scriptPayloadsRenderInert() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "xss.md", """
                # <script>alert(1)</script> title

                <script>window.pwned = 1</script>
                <img src=x onerror="window.pwned = 1">
                <svg onload="window.pwned = 1"><circle r="1"/></svg>
                <a href="javascript:window.pwned = 1">raw link</a>
                <iframe src="javascript:window.pwned = 1"></iframe>

                [click](javascript:window.pwned=1) [shout](JAVASCRIPT:window.pwned=1) [vb](vbscript:msgbox(1))
                [data](data:text/html;base64,PHNjcmlwdD53aW5kb3cucHduZWQ9MTwvc2NyaXB0Pg==)
                ![img](javascript:window.pwned=1) ![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)
                [attr](https://example.com/" onmouseover="window.pwned=1)

                """, token: token)
            let publication = try await Self.publish(app, id, token: token)
            let html = try await Self.read(app, publication.url).text.lowercased()
            #expect(!html.contains("<script") && !html.contains("<svg") && !html.contains("<iframe"))
            // The page's own stylesheet draws callout icons as SVG data URLs; the note's text is in the body.
            let body = try #require(html.range(of: "<body").map { String(html[$0.lowerBound...]) })
            #expect(!html.contains("javascript:") && !html.contains("vbscript:") && !html.contains("data:text/html")
                    && !body.contains("data:image/svg"))
            #expect(html.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression) == nil, "no event handler attribute")
            #expect(html.contains("click") && html.contains("shout"), "a refused link keeps its text")
        }
    }

    // MARK: Ending a publication

    @Test("a revoked, expired, unknown or malformed link and an attachment address all get the very same 404 page")
    func everyDeadLinkGetsTheSame404() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let revoked = NoteID(), expiring = NoteID()
            try await Self.put(app, revoked, "a.md", "A\n", token: token)
            try await Self.put(app, expiring, "b.md", "B\n", token: token)
            let first = try await Self.publish(app, revoked, token: token)
            let second = try await Self.publish(app, expiring, token: token, CreatePublicationRequest(expiresIn: 60))
            #expect(second.expiresAt != nil)

            #expect(await app.send("DELETE", "/v1/notes/\(revoked)/publication", token: token).status == 204)
            let again = await app.send("DELETE", "/v1/notes/\(revoked)/publication", token: token)
            #expect(again.status == 404 && again.errorCode == "not_published")

            app.clock.advance(seconds: 59.999)
            #expect(try await Self.read(app, second.url).status == 200, "not expired yet")
            app.clock.advance(seconds: 0.001)

            let unknown = "/p/" + String(repeating: "A", count: 43)
            let pages = [try await Self.read(app, first.url), try await Self.read(app, second.url),
                         try await Self.read(app, unknown), try await Self.read(app, "/p/short"),
                         try await Self.read(app, try #require(second.url) + "/a/img/chart.png")]
            for page in pages {
                #expect(page.status == 404)
                #expect(page.body == pages[0].body)
                #expect(page.header("Content-Type") == "text/html; charset=utf-8" && page.header("X-Robots-Tag") == "noindex")
                #expect(page.header("Content-Security-Policy") == pages[0].header("Content-Security-Policy"))
            }
            #expect(pages[0].text.contains("no published note"))
            let list = try await app.send("GET", "/v1/publications", token: token).decode(PublicationList.self)
            #expect(list.publications.isEmpty, "neither a revoked nor an expired publication is listed")
        }
    }

    @Test("publishing again gives a new link and ends the old one at once")
    func republishingReplacesTheLink() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: token)
            let old = try await Self.publish(app, id, token: token)
            let new = try await Self.publish(app, id, token: token, CreatePublicationRequest(expiresIn: 3600))
            #expect(old.token != new.token)
            #expect(try await Self.read(app, old.url).status == 404)
            #expect(try await Self.read(app, new.url).status == 200)
            let list = try await app.send("GET", "/v1/publications", token: token).decode(PublicationList.self).publications
            #expect(list.map(\.noteId) == [id] && list[0].expiresAt == new.expiresAt)
            #expect(list[0].token == nil && list[0].url == nil, "the list never shows a link")
            #expect(try app.count("SELECT count(*) FROM publications") == 1, "the replaced link is gone, not kept")
        }
    }

    @Test("deleting the note ends its publication, and restoring the note does not bring the link back; purging does too")
    func deletingTheNoteEndsThePublication() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let deleted = NoteID(), purged = NoteID()
            let note = try await Self.put(app, deleted, "gone.md", "Bye\n", token: token)
            let other = try await Self.put(app, purged, "purged.md", "Secret\n", token: token)
            let first = try await Self.publish(app, deleted, token: token)
            let second = try await Self.publish(app, purged, token: token)

            let deletion = await app.send("DELETE", "/v1/notes/\(deleted)", token: token, headers: ["If-Match": "\"\(note.rev)\""])
            #expect(deletion.status == 200)
            #expect(try await Self.read(app, first.url).status == 404)
            let tombstone = try deletion.decode(NoteResource.self)
            try await Self.put(app, deleted, "gone.md", "Bye\n", token: token, rev: tombstone.rev)
            #expect(try await Self.read(app, first.url).status == 404, "a restored note is not public again by itself")

            let purge = await app.send("POST", "/v1/notes/\(purged)/purge", token: token, headers: ["If-Match": "\"\(other.rev)\""])
            #expect(purge.status == 200, "\(purge.text)")
            #expect(try await Self.read(app, second.url).status == 404)
            #expect(try await app.send("GET", "/v1/publications", token: token).decode(PublicationList.self).publications.isEmpty)
        }
    }

    // MARK: Who may publish

    @Test("a read-scope token cannot publish or unpublish (403) but can list; another user's note cannot be published")
    func onlyTheOwnerWithWriteScopePublishes() async throws {
        try await TestApp.with { app in
            let session = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: session)
            let reader = try await app.createToken("reader", scope: .read, using: session).token ?? ""
            let refused = try await app.send("POST", "/v1/notes/\(id)/publication", json: CreatePublicationRequest(), token: reader)
            #expect(refused.status == 403 && refused.errorCode == "insufficient_scope")
            #expect(try app.count("SELECT count(*) FROM publications") == 0)
            _ = try await Self.publish(app, id, token: session)
            #expect(await app.send("DELETE", "/v1/notes/\(id)/publication", token: reader).status == 403)
            let listed = await app.send("GET", "/v1/publications", token: reader)
            #expect(listed.status == 200)
            #expect(try listed.decode(PublicationList.self).publications.count == 1)
            #expect(await app.send("POST", "/v1/notes/\(id)/publication").status == 401)

            try app.addUser("bob", password: TestAccount.password)
            let bob = try await app.login("bob", TestAccount.password).decode(TokenResponse.self).accessToken
            let foreign = await app.send("POST", "/v1/notes/\(id)/publication", token: bob)
            #expect(foreign.status == 404)
            #expect(await app.send("DELETE", "/v1/notes/\(id)/publication", token: bob).status == 404)
            #expect(try await app.send("GET", "/v1/publications", token: bob).decode(PublicationList.self).publications.isEmpty)
        }
    }

    @Test("a link made with an expiring personal token may not outlive it (403 exceeds_creator); a session's may")
    func linksDoNotOutliveTheirPersonalToken() async throws {
        try await TestApp.with { app in
            let session = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: session)
            let shortLived = try #require(try await app.createToken("ci", scope: .write, expiresIn: 3600, using: session).token)
            for request in [CreatePublicationRequest(), CreatePublicationRequest(expiresIn: 3601)] {
                let refused = try await app.send("POST", "/v1/notes/\(id)/publication", json: request, token: shortLived)
                #expect(refused.status == 403 && refused.errorCode == "exceeds_creator", "\(request)")
            }
            #expect(try app.count("SELECT count(*) FROM publications") == 0)
            _ = try await Self.publish(app, id, token: shortLived, CreatePublicationRequest(expiresIn: 3600))
            let lasting = try #require(try await app.createToken("cron", scope: .write, using: session).token)
            _ = try await Self.publish(app, id, token: lasting)
            _ = try await Self.publish(app, id, token: session)
        }
    }

    @Test("expires_in outside 1 second to 10 years and a malformed body are refused with 400")
    func badRequestsAreRefused() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: token)
            for body in [#"{"expires_in": 0}"#, #"{"expires_in": 315360001}"#, #"{"indexable": "yes"}"#, "[1"] {
                let answer = await app.send("POST", "/v1/notes/\(id)/publication", body: Data(body.utf8), token: token)
                #expect(answer.status == 400 && answer.errorCode == "invalid_json", "\(body)")
            }
            #expect(await app.send("POST", "/v1/notes/not-a-uuid/publication", token: token).status == 400)
            #expect(await app.send("POST", "/v1/notes/\(id)/publication", token: token).status == 201, "no body: the defaults")
        }
    }

    // MARK: Storage and limits

    @Test("the link's token is stored only as its SHA-256 digest: its text is nowhere in the database files")
    func tokenIsNotStoredInPlaintext() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: token)
            let secret = try #require(try await Self.publish(app, id, token: token).token)
            let stored = try app.application.database.read { db in
                try db.first("SELECT token_hash FROM publications") { $0.bytes(0) }
            }
            #expect(stored == SHA256.digest(of: Array(secret.utf8)))
            let files = try await app.storedBytes()
            #expect(files.count > 1024)
            #expect(files.range(of: Data(secret.utf8)) == nil)
            // As bytes in SQLite's file; as hex text in pg_dump's output (bytea).
            let digestStored = files.range(of: Data(SHA256.digest(of: Array(secret.utf8)))) != nil
                || files.range(of: Data(SHA256.hex(of: secret).utf8)) != nil
            #expect(digestStored, "the digest is there, so the search can find things")
            #expect(!app.log.lines.contains { $0.contains(secret) })
        }
    }

    @Test("published pages are rate-limited per client address with a 429 page and Retry-After")
    func publishedPagesAreRateLimited() async throws {
        try await TestApp.with({ $0.publicationRequestsPerMinute = 3 }) { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: token)
            let publication = try await Self.publish(app, id, token: token)
            for _ in 0..<3 { #expect(try await Self.read(app, publication.url, from: "198.51.100.1").status == 200) }
            let limited = try await Self.read(app, publication.url, from: "198.51.100.1")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After").flatMap(Int.init).map { $0 >= 1 && $0 <= 20 } == true)
            #expect(limited.header("Content-Type") == "text/html; charset=utf-8" && limited.text.contains("Too many requests"))
            let unknown = try await Self.read(app, "/p/" + String(repeating: "B", count: 43), from: "198.51.100.1")
            #expect(unknown.status == 429, "guessing links counts against the same allowance")
            #expect(try await Self.read(app, publication.url, from: "198.51.100.2").status == 200, "another address has its own")
            #expect(await app.send("GET", "/v1/publications", token: token, from: "198.51.100.1").status == 200,
                    "the API's own rate is separate")
        }
    }

    @Test("the publication answers match the OpenAPI schemas field for field")
    func answersMatchTheDocumentedSchemas() async throws {
        try await TestApp.with { app in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            try await Self.put(app, id, "a.md", "A\n", token: token)
            let created = try await app.send("POST", "/v1/notes/\(id)/publication", json: CreatePublicationRequest(expiresIn: 60, indexable: true),
                                             token: token)
            let listed = await app.send("GET", "/v1/publications", token: token)
            let checker = SchemaChecker(document: try JSONValue.parse(Data(OpenAPIDocument.json.utf8)))
            for (name, answer) in [("Publication", created), ("PublicationList", listed)] {
                let schema = try #require(checker.resolve("#/components/schemas/\(name)"))
                #expect(checker.problems(try JSONValue.parse(answer.body), against: schema) == [], "\(name)")
            }
            let keys = try JSONValue.parse(created.body).object?.keys.sorted()
            #expect(keys == ["created_at", "expires_at", "indexable", "note_id", "path", "token", "url"])
        }
    }

    @Test("an attachment address names the folder path it was made from, and nothing above the folder's root",
          arguments: [("notes/shared.md", ["notes", "img", "a b.png"]), ("notes/shared.md", ["assets", "logo.png"]),
                      ("a/b/c.md", ["x.png"]), ("top.md", ["img", "x.png"]), ("a/b/c.md", ["a", "b", "c", "d.png"])])
    func attachmentAddressesRoundTrip(notePath: String, path: [String]) throws {
        let links = PublicationLinks(notePath: notePath, token: String(repeating: "T", count: 43))
        let address = links.attachmentAddress(of: path)
        let prefix = "/p/" + links.token + "/a/"
        #expect(address.hasPrefix(prefix))
        let parts = address.dropFirst(prefix.count).split(separator: "?", maxSplits: 1)
        let up = parts.count == 2 ? try #require(Int(parts[1].dropFirst("up=".count))) : 0
        let decoded = try #require(String(parts[0]).removingPercentEncoding)
        #expect(PublicationLinks.folderPath(ofAttachment: decoded, up: up, from: notePath) == path)
        #expect(PublicationLinks.folderPath(ofAttachment: decoded, up: 9, from: notePath) == nil, "nothing above the root")
        #expect(PublicationLinks.folderPath(ofAttachment: "../" + decoded, up: up, from: notePath) == nil, "no dot segments")
    }

    /// The values of every `name="..."` attribute in `html`, in order.
    static func attributeValues(_ name: String, in html: String) -> [String] {
        var values: [String] = []
        var rest = html[...]
        while let start = rest.range(of: " \(name)=\"") {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(of: "\"") else { break }
            values.append(String(tail[..<end]))
            rest = tail[end...]
        }
        return values
    }
}
