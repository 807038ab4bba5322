import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import NotesServer

@Suite("HTTP server: requests and responses")
struct HTTPServerRequestTests {
    @Test("method, path, query, headers and body reach the responder intact over a real URLSession")
    func echoesRequest() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        defer { running.server.shutdown() }
        var request = URLRequest(url: running.url("/v1/notes/abc?a=1&b=x%20y"))
        request.httpMethod = "PUT"
        request.setValue("hello", forHTTPHeaderField: "X-Test")
        request.httpBody = Data("körper ✓".utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        #expect(http.value(forHTTPHeaderField: "Content-Length") == String(data.count))
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.method == "PUT")
        #expect(echo.path == "/v1/notes/abc")
        #expect(echo.query == ["a": "1", "b": "x y"])
        #expect(echo.body == "körper ✓")
        #expect(echo.test == "hello")
        #expect(echo.remote == "127.0.0.1")
    }

    @Test("every response carries a unique 16-hex X-Request-Id that also appears in the log")
    func requestIDs() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        defer { running.server.shutdown() }
        let first = try await RawHTTP.exchange(port: running.port, "GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let second = try await RawHTTP.exchange(port: running.port, "GET /b HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let ids = try [first, second].map { try #require($0.headers["X-Request-Id"]) }
        for id in ids {
            #expect(id.count == 16)
            #expect(id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
        #expect(ids[0] != ids[1])
        #expect(await running.log.waitForLine { $0.hasPrefix("req=\(ids[1]) GET /b 200 ") } != nil)
    }

    @Test("the log line has id, method, path, status and duration but never the query string")
    func logLineOmitsQuery() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(
            port: running.port,
            "GET /v1/notes/abc?token=s3cret&x=1 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer hidden\r\n\r\n"
        )
        #expect(response.status == 200)
        let line = try #require(await running.log.waitForLine { $0.contains("/v1/notes/abc") })
        #expect(!line.contains("s3cret"))
        #expect(!line.contains("?"))
        #expect(!line.contains("hidden"))
        #expect(line.wholeMatch(of: /req=[0-9a-f]{16} GET \/v1\/notes\/abc 200 \d+\.\d{2}ms/) != nil)
        #expect(running.log.lines.count == 1)
    }

    @Test("a NUL in a query key or value (%00) is refused with 400 invalid_query, never cut short at the NUL")
    func nulInQueryIsRefused() async throws {
        let reached = Counter()
        let running = try RunningServer.start { request in
            reached.increment()
            return echoResponder(request)
        }
        defer { running.server.shutdown() }
        for target in ["/search?q=fox%00bar", "/search?q=fox&ke%00y=1", "/search?q=%00"] {
            let response = try await RawHTTP.exchange(port: running.port, "GET \(target) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(response.status == 400, "\(target)")
            #expect(response.text.contains(#""code":"invalid_query""#), "\(target): \(response.text)")
        }
        #expect(reached.count == 0)
        let plain = try await RawHTTP.exchange(port: running.port, "GET /search?q=fox%20bar HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(plain.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: Data(plain.body)).query == ["q": "fox bar"])
    }

    @Test("HEAD gets the GET headers and Content-Length with no body on the wire")
    func headOmitsBody() async throws {
        let running = try RunningServer.start { _ in .now(.json(["hello": "world"])) }
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(
            port: running.port, "HEAD /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", readBody: false
        )
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == String(#"{"hello":"world"}"#.utf8.count))
        #expect(response.headers["X-Request-Id"] != nil)
    }

    @Test("an impossible status from the responder becomes a 500 internal_error, logged as 500")
    func invalidStatusBecomes500() async throws {
        let running = try RunningServer.start { _ in .now(HTTPResponse(status: 42, body: Array("x".utf8))) }
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(port: running.port, "GET /odd HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(response.status == 500)
        #expect(response.text.contains(#""code":"internal_error""#))
        #expect(await running.log.waitForLine { $0.contains("GET /odd 500 ") } != nil)
    }

    @Test("an unknown method reaches the responder, which decides the answer")
    func unknownMethodReachesResponder() async throws {
        let running = try RunningServer.start { request in
            request.method == "BREW" ? .now(.error(.methodNotAllowed(allowed: ["GET", "PUT"]))) : .now(.noContent())
        }
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(port: running.port, "BREW /pot HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, PUT")
        #expect(response.text.contains(#""code":"method_not_allowed""#))
    }

    @Test("answers keep the connection open (no Connection: close), with and without a request body")
    func keepsConnectionsAlive() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        let get = try await RawHTTP.exchange(port: running.port, "GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(get.status == 200)
        #expect(get.headers["Connection"] == nil)
        let post = try await RawHTTP.exchange(port: running.port, "POST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
        #expect(post.status == 200)
        #expect(post.headers["Connection"] == nil)
        try await running.stop()
    }
}
