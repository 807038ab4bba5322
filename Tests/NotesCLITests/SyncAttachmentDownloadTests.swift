import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// Attachment downloads: bounded ranges, two in flight, put together in order into the staged
/// file, so an interrupted download (a connection cut midway, a killed sync) goes on from the
/// bytes already staged, and a range that arrived ahead of its turn never leaves a gap there.
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
    static func withUploaded(_ body: (LiveServer, String) async throws -> Void) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let hash = try SyncAttachmentLargeTests.writeLargeFile(h.folder("a") + "/disk.img", mebibytes: mebibytes, seed: 41)
            #expect(try await h.sync("a").uploaded == 1)
            try await body(h, hash)
        }
    }

    /// `h`'s client through `proxy`, signed in there.
    static func through(_ proxy: HoldingProxy, _ h: LiveServer) async throws -> LiveServer {
        var proxied = h
        proxied.via = proxy.baseURL
        try await proxied.login()
        return proxied
    }

    @Test("a large attachment downloads byte-exact in bounded ranges, each from where the last ended")
    func largeAttachmentDownloadsInBoundedRanges() async throws {
        try await Self.withUploaded { h, hash in
            let requests = ContentRequests()
            let proxy = try HoldingProxy(upstreamPort: h.server.port, answering: { _ = requests.record($0); return nil })
            defer { proxy.stop() }
            let b = try await Self.through(proxy, h)
            try await b.initFolder("b")
            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all.sorted() == Self.ranges(from: 0).sorted(), "\(requests.all)")
        }
    }

    /// `bytes=FIRST-LAST` for `first..<end`.
    static func range(_ first: Int, _ end: Int) -> String { "bytes=\(first)-\(end - 1)" }

    /// Downloads through a proxy that cuts the answer for `victim` (a `Range` header) after
    /// `cutAt` bytes, once; then checks the file is byte-exact, that only the rest of that range
    /// was asked for again (`again`), and that no partial download is left.
    static func expectResumedAfterCut(of victim: String, at cutAt: Int, again: String) async throws {
        try await withUploaded { h, hash in
            let requests = ContentRequests()
            let cut = Atomic<Bool>(false)
            let port = h.server.port
            let proxy = try HoldingProxy(upstreamPort: port, answering: { request in
                guard requests.record(request), request.headers["range"] == victim,
                      !cut.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
                return .forwardingPart(of: request, toPort: port, bodyBytes: cutAt)
            })
            defer { proxy.stop() }
            let b = try await through(proxy, h)
            try await b.initFolder("b")

            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all.sorted() == (ranges(from: 0) + [again]).sorted(), "the rest only: \(requests.all)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("b") + "/.notes/tmp").isEmpty,
                    "the partial download is gone once placed")
        }
    }

    @Test("a download whose connection is cut midway goes on from the staged bytes: byte-exact, and only the rest fetched again")
    func cutDownloadResumesFromStagedBytes() async throws {
        let cutAt = 12 << 20
        try await Self.expectResumedAfterCut(of: Self.ranges(from: 0)[0], at: cutAt, again: Self.range(cutAt, 16 << 20))
    }

    @Test("the second of two ranges in flight, cut midway while it waits for the first, is asked again only from where it stopped")
    func cutSecondRangeResumesFromItsReceivedBytes() async throws {
        let cutAt = 5 << 20
        try await Self.expectResumedAfterCut(of: Self.ranges(from: 0)[1], at: cutAt, again: Self.range((16 << 20) + cutAt, 32 << 20))
    }

    /// Downloads through a proxy that changes the body of the answer for the second range with
    /// `alter`; the sync must fail with a message containing `naming`, leaving nothing at the
    /// path and no staged bytes; a sync without the proxy's meddling then gets the file whole.
    static func expectRefused(naming: String, alter: @escaping @Sendable (inout Data) -> Void) async throws {
        try await withUploaded { h, hash in
            let victim = ranges(from: 0)[1]
            let meddling = Atomic<Bool>(true)
            let port = h.server.port
            let proxy = try HoldingProxy(upstreamPort: port, answering: { request in
                guard request.headers["range"] == victim, meddling.load(ordering: .acquiring) else { return nil }
                return .forwardingAltered(of: request, toPort: port, alter: alter)
            })
            defer { proxy.stop() }
            let b = try await through(proxy, h)
            try await b.initFolder("b")

            let refused = try await b.notes(["sync", h.folder("b")])
            #expect(refused.exitCode != 0, "\(refused.stdout)")
            #expect(refused.stderr.contains(naming), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: h.folder("b") + "/disk.img"), "nothing at the path")
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("b") + "/.notes/tmp").isEmpty,
                    "wrong bytes are never kept to resume from")

            meddling.store(false, ordering: .releasing)
            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
        }
    }

    @Test("a server answering one range with the wrong bytes (the right length) leaves nothing at the path and nothing staged")
    func wrongBytesInOneRangeAreNeverPlaced() async throws {
        try await Self.expectRefused(naming: "disk.img") { body in
            let middle = body.startIndex + body.count / 2
            body[middle] ^= 0xFF
        }
    }

    @Test("a server answering a range with more bytes than asked for is refused: nothing at the path, nothing staged")
    func rangeAnswerLongerThanAskedIsRefused() async throws {
        // The transport stops it at the announced length, before a byte reaches the file.
        try await Self.expectRefused(naming: "/v1/content/") { body in body.append(Data(repeating: 7, count: 4096)) }
    }

    @Test("kill -9 of a sync midway through a download: the next sync asks only for the bytes it lacks, and nothing partial reaches the path")
    func killedDownloadResumes() async throws {
        try await Self.withUploaded { h, hash in
            let requests = ContentRequests()
            let stalledAt = 10 << 20
            let released = Atomic<Bool>(false)
            let stalled = Atomic<Bool>(false)
            let port = h.server.port
            // The answer for the first range stalls after `stalledAt` bytes until the test lets
            // it go; the second range arrives whole and waits for it, in memory only.
            let proxy = try HoldingProxy(upstreamPort: port, answering: { request in
                guard requests.record(request), request.headers["range"] == Self.ranges(from: 0)[0],
                      !stalled.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
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

            let killed = try await KilledSync.run(["sync", h.folder("b")], environment: b.environment) {
                staged() == stalledAt && requests.all.count == 2
            }
            released.store(true, ordering: .releasing)
            #expect(killed.landedMidSync, "the kill must interrupt the download")
            #expect(!FileManager.default.fileExists(atPath: h.folder("b") + "/disk.img"), "nothing partial at the path")
            #expect(staged() == stalledAt, "the range that arrived ahead of its turn was never staged")

            #expect(try await b.sync("b").downloaded == 1)
            #expect(try SyncAttachmentLargeTests.hashFile(h.folder("b") + "/disk.img") == hash)
            #expect(requests.all[..<2].sorted() == Self.ranges(from: 0)[..<2].sorted(), "\(requests.all)")
            #expect(requests.all[2...].sorted() == Self.ranges(from: Int64(stalledAt)).sorted(),
                    "the next sync asks for the rest only: \(requests.all)")
        }
    }
}
