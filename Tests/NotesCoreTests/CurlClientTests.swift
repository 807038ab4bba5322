import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `CurlClient`, the one owner of libcurl's handles, against real loopback servers: what it
/// sends, what it brings back, and every bound it holds an answer to.
@Suite("CurlClient: requests, answers and their bounds")
struct CurlClientTests {
    static let client: CurlClient = {
        do { return try CurlClient(configuration: .init(userAgent: "notes-tests")) } catch {
            preconditionFailure("libcurl could not be set up: \(error)")
        }
    }()

    static func request(_ method: String, _ url: String, body: CurlRequestBody? = nil, maxBytes: Int = 1 << 20,
                        idle: Duration = .seconds(10), deadline: Duration = .seconds(30)) -> CurlRequest {
        CurlRequest(method: method, url: url, body: body, maxResponseBytes: maxBytes, idleTimeout: idle, deadline: deadline)
    }

    @Test("a POST carries its headers and body; the answer comes back with its status, lowercased headers and body")
    func requestAndAnswer() async throws {
        let server = try ScriptedHTTPServer { request in
            .respond(status: 201, headers: ["X-Echo-Length": "\(request.body.count)"], body: Data("made".utf8))
        }
        defer { server.stop() }
        var request = Self.request("POST", server.baseURL + "/v1/things?x=1", body: .bytes(Data("hello body".utf8)))
        request.headers = ["X-Custom": "value one", "Content-Type": "text/plain"]
        let response = try await Self.client.perform(request).get()
        #expect(response.status == 201)
        #expect(response.headers["x-echo-length"] == "10")
        #expect(response.body == Data("made".utf8))
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/v1/things")
        #expect(seen.query == "x=1")
        #expect(seen.body == Data("hello body".utf8))
        #expect(seen.headers["x-custom"] == "value one")
        #expect(seen.headers["user-agent"] == "notes-tests")
        #expect(seen.headers["expect"] == nil)
    }

    @Test("a body given as a file descriptor is read from its offset as it is sent")
    func bodyFromFileDescriptor() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appending("body")
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: file)
            let descriptor = open(file.path, O_RDONLY)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let server = try ScriptedHTTPServer { _ in .respond(status: 204, headers: [:], body: Data()) }
            defer { server.stop() }
            let request = Self.request("PUT", server.baseURL + "/v1/chunk", body: .file(descriptor: descriptor, offset: 1000, length: 250_000))
            let response = try await Self.client.perform(request).get()
            #expect(response.status == 204)
            #expect(server.requests.first?.body == bytes[1000..<251_000])
        }
    }

    @Test("an answer past its bound is stopped as it arrives, announced or not", arguments: [false, true])
    func oversizedAnswerIsStopped(announced: Bool) async throws {
        let server = try ScriptedHTTPServer { _ in
            announced ? .trickle(announcedLength: 10_000_000, every: .milliseconds(1)) : .endlessChunkedBody()
        }
        defer { server.stop() }
        let outcome = await Self.client.perform(Self.request("GET", server.baseURL + "/big", maxBytes: 100_000))
        #expect(outcome.failureKind == .tooLarge)
    }

    @Test("a redirect is reported with its target and never followed, so nothing reaches the target")
    func redirectIsNotFollowed() async throws {
        let elsewhere = try ScriptedHTTPServer { _ in .json(200, "{}") }
        defer { elsewhere.stop() }
        let server = try ScriptedHTTPServer { _ in
            .respond(status: 307, headers: ["Location": elsewhere.baseURL + "/taken"], body: Data())
        }
        defer { server.stop() }
        var request = Self.request("GET", server.baseURL + "/v1/notes")
        request.headers = ["Authorization": "Bearer npt_secret"]
        let outcome = await Self.client.perform(request)
        #expect(outcome.failureKind == .redirected)
        if case .failure(let failure) = outcome { #expect(failure.detail == elsewhere.baseURL + "/taken") }
        #expect(elsewhere.requests.isEmpty)
    }

    @Test("a server that stalls mid-body is abandoned at the idle timeout, long before the deadline")
    func stallMidBodyHitsIdleTimeout() async throws {
        let server = try ScriptedHTTPServer { _ in .stallMidBody(announcedLength: 100_000, sentBytes: 40_000) }
        defer { server.stop() }
        let started = ContinuousClock.now
        let outcome = await Self.client.perform(Self.request("GET", server.baseURL + "/slow", idle: .milliseconds(500), deadline: .seconds(30)))
        let took = ContinuousClock.now - started
        #expect(outcome.failureKind == .timedOut)
        #expect(took >= .milliseconds(500))
        #expect(took < .seconds(10))
    }

    @Test("a successful answer streams into the sink as it arrives; an error answer stays in the body")
    func sinkTakesSuccessfulBodies() async throws {
        let payload = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try ScriptedHTTPServer { request in
            request.path == "/ok" ? .respond(status: 200, headers: [:], body: payload) : .error(404, "not_found", "No.")
        }
        defer { server.stop() }
        let sink = CollectingSink()
        var request = Self.request("GET", server.baseURL + "/ok")
        request.sink = sink
        let response = try await Self.client.perform(request).get()
        #expect(response.body.isEmpty)
        #expect(sink.collected == payload)
        #expect(sink.began == 200)

        let other = CollectingSink()
        request.url = server.baseURL + "/missing"
        request.sink = other
        let missing = try await Self.client.perform(request).get()
        #expect(missing.status == 404)
        #expect(!missing.body.isEmpty)
        #expect(other.began == nil)
    }

    @Test("cancelling the caller returns at once, whatever the server does")
    func cancellationReturnsAtOnce() async throws {
        let server = try ScriptedHTTPServer { _ in .stallMidBody(announcedLength: 100, sentBytes: 10, maxDuration: .seconds(30)) }
        defer { server.stop() }
        let task = Task { await Self.client.perform(Self.request("GET", server.baseURL + "/hang", idle: .seconds(60), deadline: .seconds(60))) }
        try await Task.sleep(for: .milliseconds(300))
        let cancelled = ContinuousClock.now
        task.cancel()
        let outcome = await task.value
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        #expect(outcome.failureKind == .cancelled)
    }

    @Test("nothing listening: the failure says no connection was made")
    func closedPortCannotConnect() async throws {
        let closed = try ClosedPort()
        let outcome = await Self.client.perform(Self.request("GET", "http://127.0.0.1:\(closed.port)/"))
        #expect(outcome.failureKind == .cannotConnect)
    }

    @Test("a header field that would split the request is refused before anything is sent")
    func headerInjectionIsRefused() async throws {
        let server = try ScriptedHTTPServer { _ in .json(200, "{}") }
        defer { server.stop() }
        var request = Self.request("GET", server.baseURL + "/")
        request.headers = ["X-Evil": "a\r\nX-Injected: yes"]
        let outcome = await Self.client.perform(request)
        #expect(outcome.failureKind == .other)
        #expect(server.requests.isEmpty)
    }
}

/// Keeps what reaches it, as a download's sink would write it to a file.
final class CollectingSink: CurlBodySink, Sendable {
    private let state = Mutex<(began: Int?, bytes: Data)>((nil, Data()))
    var collected: Data { state.withLock { $0.bytes } }
    var began: Int? { state.withLock { $0.began } }

    func begin(status: Int, headers: [String: String]) -> Bool {
        state.withLock { $0.began = status }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { $0.bytes.append(contentsOf: bytes) }
        return true
    }
}

extension Result where Failure == CurlFailure {
    /// The failure's kind; nil for an answer.
    var failureKind: CurlFailure.Kind? {
        if case .failure(let failure) = self { failure.kind } else { nil }
    }
}
