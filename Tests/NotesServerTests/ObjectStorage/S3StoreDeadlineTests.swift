import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The S3 content store in front of a store that takes its time, scripted on loopback: the
/// server gives up at the exchange's idle timeout or deadline and answers 503 with
/// `Retry-After`, so a handler thread is never held by the store for longer than that.
@Suite("S3 content store: a store that stalls or trickles is abandoned at its bound")
struct S3StoreDeadlineTests {
    static let timeouts = ObjectStorageTimeouts(idle: .milliseconds(500), deadline: .seconds(2))

    /// Runs `body` signed in to an app whose content store is the scripted `store`.
    static func withStore(_ store: ScriptedHTTPServer, _ body: (SignedInApp) async throws -> Void) async throws {
        let location = try S3Location(store: "s3://scripted/deadline", endpoint: store.baseURL, region: nil)
        let credentials = S3Credentials(accessKeyID: "notes-test", secretAccessKey: "scripted-secret")
        try await SignedInApp.with({ configuration in
            configuration.contentStore = .s3(location, credentials)
            configuration.objectStorageTimeouts = timeouts
        }, body)
    }

    /// Opens an upload and sends its one chunk, which the server stores in the object store,
    /// and checks the chunk's answer is the store's 503, well within the time the store would
    /// have taken.
    static func expectUnavailable(_ api: SignedInApp, within bound: Duration) async throws {
        let bytes = Array("a content the store never gets".utf8)
        let hash = SHA256.hex(of: bytes)
        let opened = try await api.openUpload(bytes)
        try #require(opened.status == 201, "open answered \(opened.status): \(opened.text)")
        let started = ContinuousClock.now
        let chunk = try await api.sendChunk(bytes[...], hash: hash, index: 0)
        let took = ContinuousClock.now - started
        #expect(chunk.status == 503, "the chunk answered \(chunk.status): \(chunk.text)")
        #expect(chunk.headers["retry-after"] == "5")
        #expect(chunk.text.contains("content_store_unavailable"))
        #expect(!chunk.text.contains("scripted-secret"))
        #expect(took < bound, "took \(took)")
    }

    @Test("a store that accepts the request and never answers is abandoned at the idle timeout: 503 with Retry-After")
    func stalledStore() async throws {
        let store = try ScriptedHTTPServer { _ in .raw { _ in Thread.sleep(forTimeInterval: 20) } }
        defer { store.stop() }
        try await Self.withStore(store) { api in
            try await Self.expectUnavailable(api, within: .seconds(10))
        }
        #expect(store.requests.first?.path.hasPrefix("/scripted/deadline/") == true)
    }

    @Test("a store that keeps sending a byte at a time is abandoned at the deadline: 503 with Retry-After")
    func tricklingStore() async throws {
        // The chunk is not there yet (HEAD: 404); storing it (PUT) is answered a byte at a time.
        let store = try ScriptedHTTPServer { request in
            request.method == "HEAD" ? .respond(status: 404, headers: [:], body: Data())
                                     : .trickle(announcedLength: 100_000, every: .milliseconds(100), maxDuration: .seconds(30))
        }
        defer { store.stop() }
        try await Self.withStore(store) { api in
            try await Self.expectUnavailable(api, within: .seconds(10))
        }
        #expect(store.requests.map(\.method) == ["HEAD", "PUT"])
    }
}
