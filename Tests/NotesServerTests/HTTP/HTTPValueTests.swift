import Foundation
import Testing
@testable import NotesServer

@Suite("HTTP values: headers, responses, errors")
struct HTTPValueTests {
    @Test("header lookup ignores case, keeps order, and setting replaces every line of that name")
    func headers() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-A") == ["1", "2"])
        headers["X-a"] = "3"
        #expect(headers.values(for: "x-A") == ["3"])
        #expect(headers.map(\.name) == ["Content-Type", "X-a"])
        headers["CONTENT-TYPE"] = nil
        #expect(headers.count == 1)
        #expect(HTTPHeaders.namesMatch("ETag", "etag"))
        #expect(!HTTPHeaders.namesMatch("ETag", "ETags"))
    }

    @Test("json responses use sorted keys, unescaped slashes and the JSON content type")
    func jsonResponse() {
        let response = HTTPResponse.json(["b": "x/y", "a": "1"], status: 201)
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"a":"1","b":"x/y"}"#)
        #expect(response.headers["content-type"] == "application/json; charset=utf-8")
    }

    @Test("a value that cannot be encoded becomes a 500 internal_error instead of a crash")
    func jsonEncodingFailure() {
        let response = HTTPResponse.json(["bad": Double.nan])
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"internal_error""#))
    }

    @Test("error responses carry the JSON error body and the error's own headers")
    func errorResponses() throws {
        let limited = HTTPResponse.error(.tooManyRequests(retryAfter: 7))
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "7")
        let decoded = try JSONDecoder().decode([String: [String: String]].self, from: Data(limited.body))
        #expect(decoded["error"]?["code"] == "too_many_requests")
        #expect(HTTPResponse.error(.payloadTooLarge(limit: 10)).status == 413)
        #expect(HTTPResponse.error(.notFound()).status == 404)
        #expect(HTTPResponse.error(.internal).status == 500)
        #expect(HTTPResponse.noContent().status == 204)
        #expect(HTTPResponse.noContent().body.isEmpty)
    }

    @Test("log text escapes spaces, control characters and percent signs so lines cannot be forged")
    func logEscaping() {
        #expect(LogText.escaped("/v1/notes/abc") == "/v1/notes/abc")
        #expect(LogText.escaped("/a b\nreq=x") == "/a%20b%0Areq=x")
        #expect(LogText.escaped("/100%") == "/100%25")
    }
}
