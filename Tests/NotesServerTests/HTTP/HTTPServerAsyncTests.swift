import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import NotesServer

@Suite("HTTP server: .later responses")
struct HTTPServerAsyncTests {
    @Test("a .later response is delivered with status, headers and request id")
    func laterResponse() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        let response = try await RawHTTP.exchange(
            port: running.port, "POST /later/one?q=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
        )
        #expect(response.status == 200)
        #expect(response.headers["X-Request-Id"]?.count == 16)
        let echo = try JSONDecoder().decode(Echo.self, from: Data(response.body))
        #expect(echo.path == "/later/one")
        #expect(echo.body == "abc")
        #expect(await running.log.waitForLine { $0.contains("POST /later/one 200 ") } != nil)
        try await running.stop()
    }

    @Test("many concurrent .later requests all complete with their own answers", arguments: [1, 2])
    func manyConcurrentLater(threads: Int) async throws {
        let running = try RunningServer.start({ $0.threadCount = threads }, responder: echoResponder)
        let count = 48
        let paths = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await RawHTTP.exchange(
                        port: running.port, "GET /later/\(index) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                    )
                    #expect(response.status == 200)
                    return (index, try JSONDecoder().decode(Echo.self, from: Data(response.body)).path)
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(paths.count == count)
        #expect(paths.allSatisfy { $0.value == "/later/\($0.key)" })
        try await running.stop()
    }

    @Test("keep-alive connections serve .now and .later requests back to back through URLSession")
    func keepAliveMix() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        for path in ["/a", "/later/b", "/c", "/later/d"] {
            let (data, response) = try await URLSession.shared.data(from: running.url(path))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try JSONDecoder().decode(Echo.self, from: data).path == path)
        }
        try await running.stop()
    }
}
