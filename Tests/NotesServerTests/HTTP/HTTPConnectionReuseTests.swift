import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// The client's transport keeps its connection alive: a sync's hundreds of requests cost one
/// TCP handshake, not hundreds. Counted where it happens, by the server's accepted connections.
@Suite("HTTP server and CurlClient: connection reuse")
struct HTTPConnectionReuseTests {
    @Test("1,000 sequential requests through one CurlClient reach the server over one connection")
    func sequentialRequestsReuseOneConnection() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        defer { running.server.shutdown() }
        let client = try CurlClient(configuration: .init(userAgent: "notes-tests"))
        for index in 0..<1_000 {
            let request = CurlRequest(method: index % 2 == 0 ? "GET" : "PUT", url: running.url("/v1/notes/\(index)").absoluteString,
                                      body: index % 2 == 0 ? nil : .bytes(Data("body \(index)".utf8)),
                                      maxResponseBytes: 1 << 20, idleTimeout: .seconds(10), deadline: .seconds(30))
            let response = try await client.perform(request).get()
            #expect(response.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.path == "/v1/notes/\(index)")
        }
        #expect(running.server.acceptedConnections.load(ordering: .relaxed) == 1)
    }

    @Test("the count is of connections: a client closing each one is counted each time")
    func closedConnectionsAreCountedEach() async throws {
        let running = try RunningServer.start(responder: echoResponder)
        defer { running.server.shutdown() }
        for path in ["/a", "/b", "/c"] {
            _ = try await RawHTTP.exchange(port: running.port, "GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        }
        #expect(running.server.acceptedConnections.load(ordering: .relaxed) == 3)
    }
}
