import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// An upload larger than the server reads is refused from its head, before the body is read; a
/// browser gets that refusal as a page of the web app saying so, not the API's JSON.
@Suite("Web upload over the request limit")
struct WebUploadTooLargeTests {
    /// Runs `body` with the application behind the real HTTP server (libmicrohttpd on a free
    /// loopback port), reading requests of at most `maxRequestBytes`.
    private static func withServer(maxRequestBytes: Int, _ body: (TestApp, UInt16) async throws -> Void) async throws {
        try await TestApp.with({ $0.limits.maxRequestBytes = maxRequestBytes }) { app in
            var configuration = HTTPServer.Configuration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.maxBodyBytes = maxRequestBytes
            let server = HTTPServer(configuration: configuration, responder: app.application.responder, log: { _ in })
            let port = try server.start()
            defer { server.shutdown() }
            try await body(app, port)
        }
    }

    /// The head of a form upload of `length` bytes, without its body.
    private static func uploadHead(length: Int, cookie: String?) -> String {
        "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
            + (cookie.map { "Cookie: \(WebCookie.session)=\($0)\r\n" } ?? "")
            + "Content-Type: multipart/form-data; boundary=----b\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test("a signed-in upload over the request limit gets a 413 page in the web app's layout naming the file limit in human units")
    func oversizedUploadGetsAPageNamingTheLimit() async throws {
        try await Self.withServer(maxRequestBytes: 1024 * 1024) { app, port in
            let browser = WebBrowser(app)
            try await browser.signIn()
            let cookie = try #require(browser.cookies[WebCookie.session])
            // Only the head is sent: the page can only come from a refusal made before the body.
            let response = try await RawHTTP.exchange(port: port, Self.uploadHead(length: 5 * 1024 * 1024, cookie: cookie))
            #expect(response.status == 413)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(response.text.contains("<nav class=\"site-nav\""), "the signed-in layout")
            #expect(response.text.contains("This file is too large to upload in one piece: a file sent without JavaScript may have at most 1008 KB "
                                           + "(with JavaScript on, the upload form sends files of up to 256 MB in parts). Nothing was stored."),
                    "\(response.text)")
            #expect(!response.text.contains("payload_too_large"), "not the API's JSON")
            // The upload form promises the same limits.
            #expect(await browser.get("/upload").body.contains("At most 256 MB.<noscript> Without JavaScript, at most 1008 KB.</noscript>"))
        }
    }

    @Test("without a session the refusal is a page too; the API keeps its JSON 413")
    func signedOutAndAPIRefusals() async throws {
        try await Self.withServer(maxRequestBytes: 64 * 1024) { _, port in
            let page = try await RawHTTP.exchange(port: port, Self.uploadHead(length: 1024 * 1024, cookie: nil))
            #expect(page.status == 413 && page.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(page.text.contains("Sign in, then send it again."), "\(page.text)")
            let api = try await RawHTTP.exchange(port: port, "PUT /v1/notes/\(NoteID()) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                 + "Content-Type: application/json\r\nContent-Length: \(1024 * 1024)\r\n\r\n")
            #expect(api.status == 413 && api.headers["Content-Type"] == HTTPResponse.jsonContentType)
            #expect(api.text.contains(#""code":"payload_too_large""#))
        }
    }
}
