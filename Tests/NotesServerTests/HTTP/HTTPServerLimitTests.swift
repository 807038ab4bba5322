import Foundation
import Testing
@testable import NotesServer

@Suite("HTTP server: body and header limits")
struct HTTPServerLimitTests {
    @Test("a Content-Length over the limit gets 413 before any body byte is sent")
    func contentLengthTooLarge() async throws {
        let calls = Counter()
        let running = try RunningServer.start({ $0.maxBodyBytes = 1024 }) { _ in
            calls.increment()
            return .now(.noContent())
        }
        defer { running.server.shutdown() }
        // Headers only: if the server waited for the body, this read would time out.
        let response = try await RawHTTP.exchange(
            port: running.port, "PUT /v1/notes/a HTTP/1.1\r\nHost: t\r\nContent-Length: 104857600\r\n\r\n"
        )
        #expect(response.status == 413)
        #expect(response.headers["Content-Type"] == HTTPResponse.jsonContentType)
        #expect(response.text.contains(#""code":"payload_too_large""#))
        #expect(calls.count == 0)
    }

    @Test("a chunked body that grows past the limit is discarded and answered 413")
    func chunkedTooLarge() async throws {
        let calls = Counter()
        let running = try RunningServer.start({ $0.maxBodyBytes = 1000 }) { _ in
            calls.increment()
            return .now(.noContent())
        }
        defer { running.server.shutdown() }
        let chunk = String(repeating: "a", count: 600)
        let request = "POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
        let response = try await RawHTTP.exchange(port: running.port, request)
        #expect(response.status == 413)
        #expect(response.text.contains(#""code":"payload_too_large""#))
        #expect(calls.count == 0)
    }

    @Test("a chunked body within the limit arrives whole")
    func chunkedWithinLimit() async throws {
        let running = try RunningServer.start({ $0.maxBodyBytes = 1000 }, responder: echoResponder)
        defer { running.server.shutdown() }
        let request = "POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        let response = try await RawHTTP.exchange(port: running.port, request)
        #expect(response.status == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: Data(response.body))
        #expect(echo.body == "hello world")
    }

    @Test("a body exactly at the limit is accepted")
    func bodyAtLimit() async throws {
        let running = try RunningServer.start({ $0.maxBodyBytes = 10 }, responder: echoResponder)
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(
            port: running.port, "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789"
        )
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: Data(response.body)).body == "0123456789")
    }

    @Test("a malformed Content-Length gets 400, never a 500 or a hang")
    func malformedContentLength() async throws {
        let calls = Counter()
        let running = try RunningServer.start { _ in
            calls.increment()
            return .now(.noContent())
        }
        defer { running.server.shutdown() }
        let response = try await RawHTTP.exchange(
            port: running.port, "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 12abc\r\n\r\n"
        )
        #expect(response.status == 400)
        #expect(calls.count == 0)
    }

    @Test("headers over the header limit get 431 with the JSON error body, from just over it to the pool's edge; under it they are served")
    func oversizedHeadersGetTheJSONError() async throws {
        let calls = Counter()
        let running = try RunningServer.start { _ in
            calls.increment()
            return .now(.noContent())
        }
        defer { running.server.shutdown() }
        let limit = 16 * 1024  // the published default
        let under = try await RawHTTP.exchange(
            port: running.port, "GET /x HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: limit - 100))\r\n\r\n")
        #expect(under.status == 204)
        // One large header, or many small ones (a pile of cookies).
        let many = (0..<400).map { "X-H\($0): \(String(repeating: "c", count: 40))\r\n" }.joined()
        for headers in ["X-Big: \(String(repeating: "b", count: limit + 1))\r\n", "X-Big: \(String(repeating: "b", count: 3 * limit))\r\n", many] {
            let response = try await RawHTTP.exchange(port: running.port, "GET /x HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
            #expect(response.status == 431)
            #expect(response.headers["Content-Type"] == HTTPResponse.jsonContentType)
            #expect(response.text.contains(#""code":"request_header_fields_too_large""#), "\(response.text)")
        }
        #expect(calls.count == 1)
    }

    @Test("headers larger than the connection memory limit get 431")
    func oversizedHeaders() async throws {
        let calls = Counter()
        let running = try RunningServer.start({ $0.connectionMemoryLimit = 16 * 1024 }) { _ in
            calls.increment()
            return .now(.noContent())
        }
        defer { running.server.shutdown() }
        let big = String(repeating: "b", count: 32 * 1024)
        let response = try await RawHTTP.exchange(
            port: running.port, "GET /x HTTP/1.1\r\nHost: t\r\nX-Big: \(big)\r\n\r\n"
        )
        #expect(response.status == 431)
        #expect(calls.count == 0)
    }
}
