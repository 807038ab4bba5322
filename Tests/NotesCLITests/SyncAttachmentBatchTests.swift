import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Small attachments go several to a request (`POST /v1/content`), end to end with the real
/// binaries; a server that refuses a batch as a whole still gets each content alone.
@Suite("Sync attachments: small contents several to a request")
struct SyncAttachmentBatchTests {
    @Test("a folder of small images goes up in one batch request, not one per file, and arrives byte-exact in another folder")
    func smallImagesShareARequest() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            var images: [String: Data] = [:]
            for index in 0..<30 {
                let path = "album/photo\(index).jpg"
                images[path] = SyncAttachmentTests.bytes(5_000 + index * 97, seed: 300 + UInt64(index))
                try h.write("a", path, images[path]!)
            }
            let up = try await h.sync("a")
            #expect(up.uploaded == 30, "\(up)")
            #expect(try await waitUntil { h.logCount("POST /v1/content ") == 1 }, "one batch for 30 small files")
            #expect(h.logCount("PUT /v1/content/") == 0 && h.logCount("/v1/uploads") == 0)

            try await h.initFolder("b")
            let down = try await h.sync("b")
            #expect(down.downloaded == 30, "\(down)")
            for (path, bytes) in images {
                #expect(FileManager.default.contents(atPath: h.folder("b") + "/" + path) == bytes, "\(path)")
            }
        }
    }

    @Test("a batch over the quota falls back to one request per content: those that fit are stored, the other is skipped and named")
    func overQuotaBatchFallsBackToEachAlone() async throws {
        try await LiveServer.with(["--quota", "40K"], account: .loggedIn) { h in
            try await h.initFolder("a")
            let files = (0..<3).map { SyncAttachmentTests.bytes(15_000, seed: 310 + UInt64($0)) }
            for (index, bytes) in files.enumerated() { try h.write("a", "scan\(index).bin", bytes) }
            try h.write("a", "note.md", "still syncs\n")

            let report = try await h.sync("a", expect: 1)
            #expect(report.skipped.count == 1 && report.skipped.first?.reason == .quotaExceeded, "\(report.skipped)")
            let skipped = try #require(report.skipped.first?.path)
            #expect(Set(try await h.serverAttachments().keys) == Set((0..<3).map { "scan\($0).bin" }).subtracting([skipped]))
            #expect(try await h.serverNotes() == ["note.md": "still syncs\n"])
            #expect(try await waitUntil { h.logCount("PUT /v1/content/") == 3 }, "each content sent alone after the 507")
        }
    }

    @Test("an image rewritten between the scan and its batch (same size, same mtime) is not stored under the old hash; the rest is, and the next sync sends it")
    func fileChangedBetweenScanAndSend() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let images = (0..<6).map { SyncAttachmentTests.bytes(4_000 + $0 * 100, seed: 320 + UInt64($0)) }
            for (index, bytes) in images.enumerated() { try h.write("a", "album/photo\(index).jpg", bytes) }
            let changed = h.folder("a") + "/album/photo2.jpg"
            let rewritten = SyncAttachmentTests.bytes(images[2].count, seed: 399)
            let report = try await h.syncInProcess("a", wrap: { remote in
                // After the scan hashed every image and before any is read to be sent.
                BeforeUploadRemote(base: remote, hook: { Self.overwriteKeepingMetadata(changed, with: rewritten) })
            })
            #expect(report.skipped.map(\.path) == ["album/photo2.jpg"], "\(report.skipped)")
            #expect(try await waitUntil { h.logCount("POST /v1/content ") == 1 }, "the batch carried the rewritten image too")
            let stored = try await h.serverAttachments()
            #expect(Set(stored.keys) == Set((0..<6).filter { $0 != 2 }.map { "album/photo\($0).jpg" }))
            #expect(try await Self.serverLacks(Array(images[2]), h), "bytes that no longer hash to the scan's hash are never stored under it")

            let again = try await h.sync("a")
            #expect(again.uploaded == 1, "\(again)")
            #expect(try await h.serverAttachments()["album/photo2.jpg"]?.hash == SHA256.hex(of: Array(rewritten)))
        }
    }

    @Test("""
        a large file rewritten between the scan and its chunked upload (same size, same mtime) is refused at its first \
        chunk against the scan's digests: skipped as changed, nothing stored under the old hash; the next sync sends it
        """)
    func largeFileChangedBetweenScanAndChunks() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            // Two chunks of the server's 8 MiB, each block of it distinct.
            func content(_ seed: UInt64) -> Data {
                let block = SyncAttachmentTests.bytes(64 << 10, seed: seed)
                var data = Data(capacity: 9 << 20)
                for index in 0..<144 { data.append(block); data[data.count - 1] = UInt8(truncatingIfNeeded: index) }
                return data
            }
            let original = content(410), rewritten = content(411)
            try h.write("a", "video.mp4", original)
            let path = h.folder("a") + "/video.mp4"
            let report = try await h.syncInProcess("a", wrap: { remote in
                BeforeUploadRemote(base: remote, hook: { Self.overwriteKeepingMetadata(path, with: rewritten) })
            })
            #expect(report.skipped.map(\.path) == ["video.mp4"] && report.uploaded == 0, "\(report)")
            #expect(try await Self.serverLacks(Array(original), h), "bytes that no longer hash to the scan's hash are never stored under it")

            let again = try await h.sync("a")
            #expect(again.uploaded == 1, "\(again)")
            #expect(try await h.serverAttachments()["video.mp4"]?.hash == SHA256.hex(of: Array(rewritten)))
            #expect(try await waitUntil { h.logCount("/complete") >= 1 })
            #expect(h.logCount("/complete") == 1, "the first sync was refused at a chunk, by the scan's digest, and never completed")
        }
    }

    /// Whether the server says it lacks the content `bytes` (`POST /v1/content/missing`).
    static func serverLacks(_ bytes: [UInt8], _ h: LiveServer) async throws -> Bool {
        let hash = SHA256.hex(of: bytes)
        let asked = try await h.apiClient().json(ContentMissingResponse.self,
                                                        APIRequest.json("POST", "/v1/content/missing", ContentMissingRequest(hashes: [hash])))
        return asked.missing == [hash]
    }

    /// Rewrites `path` in place with `bytes` of its length and puts its old modification time
    /// back, so size, mtime and inode all read as the scan saw them: only the hash tells.
    static func overwriteKeepingMetadata(_ path: String, with bytes: Data) {
        var before = stat()
        guard lstat(path, &before) == 0, before.st_size == bytes.count else {
            Issue.record("\(path) is not \(bytes.count) bytes")
            return
        }
        let fd = open(path, O_WRONLY)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        let times = [before.st_atim, before.st_mtim]
        #expect(futimens(fd, times) == 0)
        close(fd)
    }
}

/// Forwards everything to the real server, running `hook` once when sync asks which contents
/// the server lacks: after the scan, before any content is read to be sent.
struct BeforeUploadRemote: SyncRemote {
    let base: any SyncRemote
    let hook: @Sendable () -> Void
    let fired = Flag()

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }
    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse { try await base.batch(operations) }
    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }
    func noteLimit() async -> Int { await base.noteLimit() }
    func limits() async -> ServerLimits { await base.limits() }
    func missingContent(_ hashes: [String]) async throws -> [String] {
        let missing = try await base.missingContent(hashes)
        if fired.setOnce() { hook() }
        return missing
    }
    func putContent(hash: String, bytes: [UInt8]) async throws -> Bool { try await base.putContent(hash: hash, bytes: bytes) }
    func putContents(_ body: Data, hashes: [String]) async throws -> [ContentBatchResult]? { try await base.putContents(body, hashes: hashes) }
    func openUpload(hash: String, size: Int64) async throws -> UploadState { try await base.openUpload(hash: hash, size: size) }
    func putChunk(hash: String, index: Int, body: FileBody, digest: [UInt8]) async throws { try await base.putChunk(hash: hash, index: index, body: body, digest: digest) }
    func completeUpload(hash: String) async throws { try await base.completeUpload(hash: hash) }
    func content(hash: String, offset: Int64, length: Int, total: Int64) async throws -> Data {
        try await base.content(hash: hash, offset: offset, length: length, total: total)
    }
    func content(hash: String, offset: Int64, length: Int64, total: Int64, into sink: any ResponseBodySink) async throws {
        try await base.content(hash: hash, offset: offset, length: length, total: total, into: sink)
    }
}
