import Foundation
import NotesCore
import NotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `CurlClient.performAndWait`, the form a thread that serves one request at a time (the
/// server's handler threads) sends with, and the bounds a caller streaming into a sink relies on.
@Suite("CurlClient: waiting on a thread, and bounds around a sink")
struct CurlClientWaitingTests {
    static var client: CurlClient { CurlClientTests.client }

    /// Writes all of `bytes` to a scripted server's connection (until the client hangs up).
    static func sendAll(_ bytes: Data, to socket: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    @Test("waiting on its own thread, a body streamed from a file with no name arrives byte-exact")
    func unnamedFileBodyArrivesExactly() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending("body").path
            let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
            try bytes.write(to: URL(fileURLWithPath: path))
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            // Sent from the descriptor alone, as the server sends a file it has already unlinked.
            unlink(path)
            let server = try ScriptedHTTPServer { request in
                .respond(status: 200, headers: ["X-Length": "\(request.body.count)"], body: Data("stored".utf8))
            }
            defer { server.stop() }
            let request = CurlClientTests.request("PUT", server.baseURL + "/bucket/object",
                                                  body: .file(descriptor: descriptor, offset: 0, length: Int64(bytes.count)))
            let response = try await onOwnThread { Self.client.performAndWait(request) }.get()
            #expect(response.status == 200)
            #expect(response.body == Data("stored".utf8))
            #expect(server.requests.first?.body == bytes)
        }
    }

    @Test("waiting on its own thread, a server that keeps trickling bytes is abandoned at the deadline")
    func tricklingServerHitsDeadline() async throws {
        let server = try ScriptedHTTPServer { _ in .trickle(announcedLength: 10_000, every: .milliseconds(100), maxDuration: .seconds(20)) }
        defer { server.stop() }
        let request = CurlClientTests.request("GET", server.baseURL + "/slow", idle: .seconds(5), deadline: .seconds(1))
        let started = ContinuousClock.now
        let outcome = await onOwnThread { Self.client.performAndWait(request) }
        let took = ContinuousClock.now - started
        #expect(outcome.failureKind == .deadlineExceeded)
        #expect(took >= .seconds(1))
        #expect(took < .seconds(5), "the deadline, not the idle timeout or the server, ended it")
    }

    @Test("waiting on its own thread, nothing listening fails at once without a connection")
    func closedPortFails() async throws {
        let closed = try ClosedPort()
        let request = CurlClientTests.request("GET", "http://127.0.0.1:\(closed.port)/")
        #expect(await onOwnThread { Self.client.performAndWait(request) }.failureKind == .cannotConnect)
    }

    @Test("with a sink, a success may run to the response bound while an error answer is held only to the buffered bound",
          arguments: [false, true])
    func errorAnswerBesideSinkIsBounded(announced: Bool) async throws {
        let large = Data(repeating: UInt8(ascii: "e"), count: 2_000_000)
        let server = try ScriptedHTTPServer { request in
            if request.path == "/ok" { return .respond(status: 200, headers: [:], body: large) }
            return announced ? .respond(status: 500, headers: [:], body: large) : .raw { socket in
                let head = "HTTP/1.1 500 Scripted\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                var answer = Data(head.utf8)
                for _ in 0..<40 {
                    answer.append(Data("C350\r\n".utf8))  // 50,000 bytes a chunk
                    answer.append(Data(repeating: UInt8(ascii: "e"), count: 50_000))
                    answer.append(Data("\r\n".utf8))
                }
                answer.append(Data("0\r\n\r\n".utf8))
                Self.sendAll(answer, to: socket)
            }
        }
        defer { server.stop() }
        let sink = CollectingSink()
        var request = CurlClientTests.request("GET", server.baseURL + "/ok", maxBytes: .max)
        request.sink = sink
        request.maxBufferedBytes = 64 * 1024
        let ok = try await Self.client.perform(request).get()
        #expect(ok.status == 200)
        #expect(sink.collected == large)

        request.url = server.baseURL + "/failing"
        request.sink = CollectingSink()
        #expect(await Self.client.perform(request).failureKind == .tooLarge)
    }

    @Test("a HEAD answer announcing a length past the response bound is an answer, not an oversized body")
    func headAnnouncesLengthWithoutBody() async throws {
        let server = try ScriptedHTTPServer { _ in
            .raw { socket in
                let head = "HTTP/1.1 200 Scripted\r\nContent-Length: 5000000000\r\nConnection: close\r\n\r\n"
                Self.sendAll(Data(head.utf8), to: socket)
            }
        }
        defer { server.stop() }
        let response = try await Self.client.perform(CurlClientTests.request("HEAD", server.baseURL + "/object", maxBytes: 1 << 20)).get()
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "5000000000")
        #expect(response.body.isEmpty)
    }
}
