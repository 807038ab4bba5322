import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// Attachment downloads: bounded ranges, each written as it arrives and each starting where the
/// staged bytes end, so an interrupted download (a connection cut midway, a killed sync) goes on
/// from the bytes already staged.
/// The cuts happen at a known byte through a proxy in front of the real server, never after a
/// delay. That a stream whose bytes do not match the hash leaves nothing at the path is
/// `SyncAttachmentHostileTests.mismatchedBytesAreNeverPlaced`.
@Suite("Sync attachment downloads end to end", .serialized)
struct SyncAttachmentDownloadTests {
    static let mebibytes = 40
    static var total: Int64 { Int64(mebibytes) << 20 }

    /// The `Range` headers of a download from `start` to the end, in `ContentDownload` ranges.
    static func ranges(from start: Int64) -> [String] {
        stride(from: start, to: total, by: Int(ContentDownload.rangeBytes)).map { first in
            "bytes=\(first)-\(min(first + ContentDownload.rangeBytes, total) - 1)"
        }
    }

    /// The content requests that passed a proxy, with their `Range` header ("" for none).
    final class ContentRequests: Sendable {
        private let ranges = Mutex<[String]>([])

        func record(_ request: ScriptedHTTPServer.Request) -> Bool {
            guard request.method == "GET", request.path.hasPrefix("/v1/content/") else { return false }
            ranges.withLock { $0.append(request.headers["range"] ?? "") }
            return true
        }

        var all: [String] { ranges.withLock { $0 } }
    }

    /// Folder `a` synced up with a large attachment directly; then `body` gets a harness whose
    /// client talks through `proxy`, and the file's hash.
    static func withUploaded(_ body: (SyncHarness, String) async throws -> Void) async throws {
        try await SyncHarness.with { h in
            try await h.initFolder("a")
            let hash = try SyncAttachmentLargeTests.writeLargeFile(h.folder("a") + "/disk.img", mebibytes: mebibytes, seed: 41)
            #expect(try await h.sync("a").uploaded == 1)
            try await body(h, hash)
        }
    }

    /// `h`'s client through `proxy`, signed in there.
    static func through(_ proxy: HoldingProxy, _ h: SyncHarness) async throws -> SyncHarness {
        var client = h.client
        client.via = proxy.baseURL
        let proxied = SyncHarness(client: client, work: h.work)
        try await proxied.client.login()
        return proxied
    }

    @Test("a large attachment downloads byte-exact in bounded ranges, each from where the last ended")
    func largeAttachmentDownloadsInBoundedRanges() async throws {
        try await Self.withUploaded { h, hash in
            let requests = ContentRequests()
            let proxy = try HoldingProxy(upstreamPort: h.client.server.port, answering: { _ = requests.record($0); return nil })
            defer { proxy.stop() }
            let b = try await Self.through(proxy, h)
            try await b.initFolder("b")
            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all == Self.ranges(from: 0), "\(requests.all)")
        }
    }

    @Test("a download whose connection is cut midway goes on from the staged bytes: byte-exact, and only the rest fetched again")
    func cutDownloadResumesFromStagedBytes() async throws {
        try await Self.withUploaded { h, hash in
            let requests = ContentRequests()
            let cutAt = 12 << 20
            let port = h.client.server.port
            let proxy = try HoldingProxy(upstreamPort: port, answering: { request in
                guard requests.record(request), requests.all.count == 1 else { return nil }
                return .forwardingPart(of: request, toPort: port, bodyBytes: cutAt)
            })
            defer { proxy.stop() }
            let b = try await Self.through(proxy, h)
            try await b.initFolder("b")

            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all == [Self.ranges(from: 0)[0]] + Self.ranges(from: Int64(cutAt)), "the rest only: \(requests.all)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("b") + "/.notes/tmp").isEmpty,
                    "the partial download is gone once placed")
        }
    }

    @Test("kill -9 of a sync midway through a download: the next sync asks only for the bytes it lacks, and nothing partial reaches the path")
    func killedDownloadResumes() async throws {
        try await Self.withUploaded { h, hash in
            let requests = ContentRequests()
            let stalledAt = 10 << 20
            let released = Atomic<Bool>(false)
            let port = h.client.server.port
            // The first answer stalls after `stalledAt` bytes until the test lets it go.
            let proxy = try HoldingProxy(upstreamPort: port, answering: { request in
                guard requests.record(request), requests.all.count == 1 else { return nil }
                return .forwardingPart(of: request, toPort: port, bodyBytes: stalledAt) {
                    let deadline = Date().addingTimeInterval(60)
                    while !released.load(ordering: .acquiring) && Date() < deadline { usleep(2_000) }
                }
            })
            defer { proxy.stop() }
            let b = try await Self.through(proxy, h)
            try await b.initFolder("b")
            let partial = h.folder("b") + "/.notes/tmp/" + StagedFile.partialPrefix + hash
            func staged() -> Int { (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0 }

            let killed = try await KilledSync.run(["sync", h.folder("b")], environment: b.client.environment) { staged() == stalledAt }
            released.store(true, ordering: .releasing)
            #expect(killed.landedMidSync, "the kill must interrupt the download")
            #expect(!FileManager.default.fileExists(atPath: h.folder("b") + "/disk.img"), "nothing partial at the path")

            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all == [Self.ranges(from: 0)[0]] + Self.ranges(from: Int64(stalledAt)),
                    "the next sync asks for the rest only: \(requests.all)")
        }
    }
}
